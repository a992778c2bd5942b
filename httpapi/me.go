package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

func getMe(_ *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	respond(w, r, map[string]any{"user": p.User, "workspace": p.Workspace})
}

func updateMe(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	cmd := domain.UpdateProfile{
		FirstName: profileFirstName.read(b), LastName: profileLastName.read(b), Currency: profileCurrency.read(b),
		Language: profileLanguage.read(b), Theme: profileTheme.read(b),
		NotificationsEnabled: profileNotifications.read(b), HasCompletedOnboarding: profileOnboarded.read(b),
	}
	p := principalFrom(r.Context())
	c := command{UserID: p.User.ID, DecideUser: cmd.Decide, Answer: queries.Record("user", queries.UserByID(p.User.ID))}
	if cmd.Language.Set {
		// The personal workspace speaks its owner's language (domain/language.go).
		c.WorkspaceID = p.User.PersonalWorkspaceID
		c.Decide = domain.SetWorkspaceLanguage{ActorID: p.User.ID, Language: cmd.Language.Value}.Decide
	}
	s.run(w, r, b, c)
}

// deleteMe closes the caller's account. The payment provider goes first, outside any
// transaction: if it cannot cancel the subscriptions, nothing is deleted and the call
// can be retried; the cause is logged, not shown.
func deleteMe(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	p := principalFrom(r.Context())
	if err := s.billing.CancelSubscriptions(r.Context(), p.User.ID); err != nil {
		slog.WarnContext(r.Context(), "cancel subscriptions", "requestId", requestID(r.Context()), "err", err)
		writeError(w, r, &apiError{Status: http.StatusServiceUnavailable, Code: "BILLING_UNAVAILABLE", RetryAfter: billingRetryAfter,
			Message: "the payment provider could not cancel your subscriptions, so nothing was deleted; try again after Retry-After seconds"})
		return
	}
	var cmd domain.DeleteUser
	s.run(w, r, b, command{WorkspaceID: p.User.PersonalWorkspaceID, Decide: cmd.Decide, UserID: p.User.ID, DecideUser: cmd.DecideUser, Answer: queries.Value(map[string]bool{"ok": true})})
}
