package httpapi

import (
	"strconv"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/imports"
)

// importDescription is what the upload of a statement says beyond its summary.
var importDescription = "The file is the body (any media type) or the multipart field file, at most " +
	strconv.Itoa(imports.MaxFile>>20) + " MiB. Its format is told from its content, never its name. Nothing is recorded: " +
	"the preview lists every row with its proposed transaction and a duplicate verdict (duplicate: the same external id is in " +
	"the wallet, or earlier in the file; probable: a transaction recorded by hand has the same amount and direction, a date at most " +
	"3 days apart and a payee alike; new), the first rule that matches it (ruleId), and a default decision (new: import, duplicate: skip, probable: merge). A row without " +
	"the bank's id gets one made from its date, amount, payee, memo and how many rows alike came before it, so the same file " +
	"gives the same ids. A CSV is read by its mapping, else its profile, else by its header's names, else, when they " +
	"do not say plainly, by the wallet's one import profile when it has exactly one. 422 IMPORT_FORMAT_UNKNOWN, IMPORT_FILE_INVALID (naming the line or XML element), IMPORT_MAPPING_REQUIRED " +
	"(with the columns found and sample rows), IMPORT_DATE_ORDER_REQUIRED, IMPORT_ENCODING_INVALID, IMPORT_ACCOUNT_REQUIRED, " +
	"IMPORT_CURRENCY_MISMATCH; 413 IMPORT_FILE_TOO_LARGE."

// statementUpload is the request body of a statement's upload.
func statementUpload() obj {
	file := str(obj{"format": "binary"})
	return obj{"required": true, "description": "The statement file", "content": obj{
		"application/octet-stream": obj{"schema": file}, "text/csv": obj{"schema": file}, "text/plain": obj{"schema": file},
		"application/xml": obj{"schema": file}, "text/xml": obj{"schema": file}, "application/x-ofx": obj{"schema": file},
		"*/*": obj{"schema": file},
		"multipart/form-data": obj{"schema": object(obj{"file": file,
			"mapping": str(obj{"description": "a CSV's columns, as the JSON of an import profile's mapping"}),
			"profile": str(obj{"format": "uuid", "description": "a saved import profile whose mapping reads a CSV"})}, "file")},
	}}
}

// attachmentUpload is the request body of a receipt's upload.
func attachmentUpload() obj {
	file := str(obj{"format": "binary"})
	content := obj{"multipart/form-data": obj{"schema": object(obj{"file": file}, "file")}, "application/octet-stream": obj{"schema": file}}
	for _, t := range attachmentTypes() {
		content[t] = obj{"schema": file}
	}
	return obj{"required": true, "description": "The file: its kind is told from its content, whatever it is declared as", "content": content}
}

// attachmentTypes are the media types of the files a transaction takes.
func attachmentTypes() []string {
	var out []string
	for _, k := range attachments.Kinds {
		out = append(out, k.MIME())
	}
	return out
}

func importSchema() obj {
	count := obj{"type": []string{"integer", "null"}}
	statementSchema := obj{"type": []string{"object", "null"}, "properties": obj{
		"openingBalance": obj{"type": []string{"number", "null"}}, "closingBalance": obj{"type": []string{"number", "null"}},
		"date": str(obj{"description": "of the closing balance, YYYY-MM-DD; empty when the file gives none"})},
		"required": []string{"openingBalance", "closingBalance", "date"}}
	amount := num(money)
	s := record(obj{"id": uuidRef(), "walletId": uuidRef(),
		"status":   str(obj{"enum": []string{imports.StatusPreview, imports.StatusCommitted, imports.StatusUndone}}),
		"format":   str(obj{"enum": []string{"csv", "ofx", "qif", "camt", "mt940"}}),
		"fileName": nstr(nil), "fileSha256": str(nil), "statement": statementSchema, "rowCount": obj{"type": "integer"},
		"createdAt": dateTime(), "committedAt": nstr(obj{"format": "date-time"}), "undoneAt": nstr(obj{"format": "date-time"}),
		"created": count, "merged": count, "skipped": count})
	s["properties"].(obj)["summary"] = record(obj{"rows": obj{"type": "integer"}, "new": obj{"type": "integer"},
		"duplicate": obj{"type": "integer"}, "probable": obj{"type": "integer"}, "import": obj{"type": "integer"},
		"skip": obj{"type": "integer"}, "merge": obj{"type": "integer"}, "moneyIn": amount, "moneyOut": amount,
		"walletBalance": amount, "balanceAfter": amount,
		"difference": obj{"type": []string{"number", "null"}, "description": "the statement's closing balance less balanceAfter"}})
	s["properties"].(obj)["rows"] = obj{"type": "array", "items": ref("ImportRow"), "description": "with GET of one import, and the preview's answer"}
	return s
}

func importRowSchema() obj {
	return record(obj{"index": obj{"type": "integer"}, "date": str(obj{"format": "date"}), "valueDate": str(nil),
		"amount":   num(merge(obj{"description": "signed as on the statement: money out is negative"}, money)),
		"currency": str(nil), "payee": str(nil), "memo": str(nil), "externalId": str(nil), "externalIdGiven": boolean(),
		"counterpartyAccount": str(nil),
		"type":                str(obj{"enum": enum(domain.TxIncome, domain.TxExpense, domain.TxTransfer)}),
		"concept":             nstr(nil), "categoryId": nuuid(), "tagId": nuuid(), "toWalletId": nuuid(), "ruleId": nuuid(),
		"splits": obj{"type": "array", "items": splitPartSchema(), "description": "the parts the file splits the row in (a QIF " +
			"file's S, $ and E lines), each category found by its name, which the commit records as a split transaction; empty " +
			"when the row is not split. A category chosen for the row, or a transfer, takes the place of the parts"},
		"match": record(obj{"verdict": str(obj{"enum": []string{imports.VerdictNew, imports.VerdictDuplicate, imports.VerdictProbable}}),
			"reason": str(nil), "transactionId": nuuid()}),
		"decision":      str(obj{"enum": domain.ImportDecisions}),
		"transactionId": nuuid(),
	})
}

// ruleDescription is what the creation of a rule says beyond its summary.
const ruleDescription = "A condition reads a field (payee, concept, memo: contains, equals, starts_with, matches, a regular " +
	"expression in RE2 syntax; amount: equals, between value and valueTo, money in or out alike; wallet and type: equals) " +
	"ignoring accents and case. In a statement's preview the payee is the row's and the concept the proposed one; of a " +
	"recorded transaction both are its concept and the memo its description. The first rule, by position, whose conditions " +
	"all hold applies: it sets a category, a tag, a concept, a type (income, expense, or transfer to toWalletId, for money " +
	"out), or skips the row; or it splits an income or expense in parts by percent (splits: two parts at least, adding up to " +
	"100, each with its category, tag and concept; the last part takes what the others, cut to the currency's minor unit, " +
	"leave). 400 names a condition that cannot hold."

func ruleConditionSchema() obj {
	return object(obj{"field": str(obj{"enum": domain.RuleFields}), "op": str(obj{"enum": domain.RuleOps}),
		"value": str(nil), "valueTo": str(nil)}, "field", "op", "value")
}

func ruleActionsSchema() obj {
	return object(obj{"categoryId": uuidRef(), "tagId": uuidRef(), "concept": str(nil), "toWalletId": uuidRef(),
		"type": str(obj{"enum": enum(domain.TxIncome, domain.TxExpense, domain.TxTransfer)}), "skip": boolean(),
		"splits": obj{"type": "array", "items": object(obj{"percent": num(nil), "categoryId": uuidRef(), "tagId": uuidRef(),
			"concept": str(nil)}, "percent")}})
}

func ruleSchema() obj {
	return record(obj{"id": uuidRef(), "name": str(nil), "position": obj{"type": "integer"},
		"conditions": obj{"type": "array", "items": ruleConditionSchema()}, "actions": ruleActionsSchema(),
		"createdAt": dateTime(), "updatedAt": dateTime()})
}
