package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Rule limits of the API.
const (
	// maxRuleApply bounds the transactions one application of the rules reads: the
	// newest, past which the answer says there are more.
	maxRuleApply = 10_000
)

// The request fields of rules.
var (
	ruleName       = textField{Name: "name", Text: domain.Text{Min: 1, Max: 100}}
	rulePosition   = numberField{Name: "position", Min: 1, Max: 1_000_000, Integer: true, Doc: obj{"description": "rules apply in this order, lowest first; default: after the others"}}
	ruleCondField  = textField{Name: "field", Enum: domain.RuleFields}
	ruleCondOp     = textField{Name: "op", Enum: domain.RuleOps}
	ruleCondValue  = textField{Name: "value", Text: domain.Text{Min: 1, Max: domain.MaxRulePattern}}
	ruleCondTo     = textField{Name: "valueTo", Text: domain.Text{Max: domain.MaxRulePattern}, Doc: obj{"description": "between: the highest amount"}}
	ruleConditions = objectsField{Name: "conditions", Max: domain.MaxRuleConditions, Item: &bodyRule{
		Fields: []field{ruleCondField, ruleCondOp, ruleCondValue, ruleCondTo}, Required: []string{"field", "op", "value"}}}
	ruleCategory     = idField{Name: "categoryId"}
	ruleTag          = idField{Name: "tagId"}
	ruleType         = textField{Name: "type", Enum: enum(domain.TxIncome, domain.TxExpense, domain.TxTransfer)}
	ruleToWallet     = idField{Name: "toWalletId", Doc: obj{"description": "with type transfer: the wallet money goes to"}}
	ruleSkip         = boolField{Name: "skip", Doc: obj{"description": "leave a statement's row out of its import"}}
	ruleSplitPercent = numberField{Name: "percent", Above: true, Max: 100, Doc: obj{"description": "the part's share of the amount, two decimals at most"}}
	ruleSplits       = objectsField{Name: "splits", Max: domain.MaxSplitParts, Item: &bodyRule{
		Fields: []field{ruleSplitPercent, ruleCategory, ruleTag, transactionConcept}, Required: []string{"percent"}},
		Doc: obj{"description": "split an income or expense in parts by percent, adding up to 100, in place of one category"}}
	ruleActions = objectField{Name: "actions", Body: &bodyRule{Fields: []field{ruleCategory, ruleTag, transactionConcept, ruleType,
		ruleToWallet, ruleSkip, ruleSplits}}}
	ruleDryRun = boolField{Name: "dryRun", Doc: obj{"description": "list what would change and change nothing; default true", "default": true}}
	ruleIDs    = idsField{Name: "ruleIds", Max: domain.MaxRules}
	ruleWallet = idField{Name: "walletId", Doc: obj{"description": "only the transactions of this wallet"}}
	ruleFrom   = dateField{Name: "from"}
	ruleTo     = dateField{Name: "to"}
)

func ruleConditionsOf(b *body) []domain.RuleCondition {
	conditions := readObjects(b, ruleConditions, func(c *body) domain.RuleCondition {
		return domain.RuleCondition{Field: ruleCondField.read(c).Value, Op: ruleCondOp.read(c).Value,
			Value: ruleCondValue.read(c).Value, ValueTo: ruleCondTo.read(c).Value}
	})
	if _, sent := b.fields[ruleConditions.Name]; sent && conditions == nil {
		conditions = []domain.RuleCondition{} // sent empty: refused as such
	}
	return conditions
}

func ruleActionsOf(b *body) *domain.RuleActions {
	var a domain.RuleActions
	if !ruleActions.read(b, func(o *body) {
		a.CategoryID, a.TagID, a.Concept = ruleCategory.read(o).Ptr(), ruleTag.read(o).Ptr(), transactionConcept.read(o).Ptr()
		if t := ruleType.read(o); t.Set {
			typ := domain.TransactionType(t.Value)
			a.Type = &typ
		}
		a.ToWalletID, a.Skip = ruleToWallet.read(o).Ptr(), ruleSkip.read(o).Value
		a.Splits = readObjects(o, ruleSplits, func(p *body) domain.RuleSplit {
			return domain.RuleSplit{Percent: ruleSplitPercent.read(p).Value, CategoryID: ruleCategory.read(p).Ptr(),
				TagID: ruleTag.read(p).Ptr(), Concept: transactionConcept.read(p).Ptr()}
		})
		if _, sent := o.fields[ruleSplits.Name]; sent && a.Splits == nil {
			a.Splits = []domain.RuleSplit{} // sent empty: refused as such
		}
	}) {
		return nil
	}
	return &a
}

func listRules(s *Server, w http.ResponseWriter, r *http.Request) {
	rules, err := queries.Rules(r.Context(), s.pool, activeWorkspace(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"rules": rules})
}

func createRule(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	cmd := domain.CreateRule{RuleID: newID(), Rule: domain.RuleDefinition{Name: ruleName.read(b).Value,
		Position: int(rulePosition.read(b).Value.IntPart()), Conditions: ruleConditionsOf(b)}}
	if a := ruleActionsOf(b); a != nil {
		cmd.Rule.Actions = *a
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("rule", queries.RuleByID(activeWorkspace(r), cmd.RuleID))})
}

func updateRule(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.UpdateRule{RuleID: id, Name: ruleName.read(b).Ptr(), Conditions: ruleConditionsOf(b), Actions: ruleActionsOf(b)}
	if p := rulePosition.read(b); p.Valid {
		n := int(p.Value.IntPart())
		cmd.Position = &n
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("rule", queries.RuleByID(activeWorkspace(r), id))})
}

func deleteRule(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteRule{RuleID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

// applyRules lists what the rules change of recorded transactions and, unless it is a
// dry run, changes it in one command.
func applyRules(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	dryRun := orDefault(ruleDryRun.read(b), true)
	only, wallet, from, to := ruleIDs.read(b), ruleWallet.read(b), ruleFrom.read(b), ruleTo.read(b)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx, ws := r.Context(), activeWorkspace(r)
	book, err := queries.RuleBook(ctx, s.pool, ws)
	if err != nil {
		writeError(w, r, err)
		return
	}
	targets, more, err := queries.RuleCandidates(ctx, s.pool, ws, wallet.Ptr(), from.Ptr(), to.Ptr(), maxRuleApply)
	if err != nil {
		writeError(w, r, err)
		return
	}
	changes := book.Changes(targets, only)
	shown := make([]ruleChange, len(changes))
	for i, c := range changes {
		shown[i] = ruleChange{RuleChange: c, Splits: queries.SplitPartsOf(c.Splits)}
	}
	answer := map[string]any{"dryRun": dryRun, "changes": shown, "more": more}
	if dryRun || len(changes) == 0 {
		answer["applied"] = 0
		respond(w, r, answer)
		return
	}
	answer["applied"] = len(changes)
	cmd := domain.ApplyRules{Changes: changes}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(answer)})
}

// ruleChange is a change rules propose as the answer shows it: its parts' amounts as
// numbers, as every record's.
type ruleChange struct {
	domain.RuleChange
	Splits []queries.SplitPart `json:"splits,omitempty"`
}

// suggestRules proposes a rule for each concept that carries one category in most of
// its transactions, when no rule already gives it one.
func suggestRules(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx, ws := r.Context(), activeWorkspace(r)
	book, err := queries.RuleBook(ctx, s.pool, ws)
	if err != nil {
		writeError(w, r, err)
		return
	}
	counts, err := queries.PayeeCategories(ctx, s.pool, ws)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"suggestions": book.Suggest(counts)})
}

// ruleFromCorrection is the rule a correction of an imported row's category offers:
// its payee gives that category.
func ruleFromCorrection(payee string, categoryID uuid.UUID) *domain.RuleSuggestion {
	if payee == "" {
		return nil
	}
	suggestion := domain.PayeeRule(payee, categoryID, 0)
	return &suggestion
}
