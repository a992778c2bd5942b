package httpapi

import "net/http"

func getMe(_ *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"user": p.User, "workspace": p.Workspace})
}
