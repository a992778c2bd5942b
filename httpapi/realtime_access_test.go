package httpapi

import "testing"

// Who may keep reading a workspace's stream.
func TestRealtimeAccessLost(t *testing.T) {
	role := func(r string) *string { return &r }
	for _, c := range []struct {
		access realtimeAccess
		want   string
	}{
		{realtimeAccess{role: role("owner")}, ""},
		{realtimeAccess{role: role("admin")}, ""},
		{realtimeAccess{role: role("collaborator")}, ""},
		{realtimeAccess{role: role("reader")}, ""},
		{realtimeAccess{role: role("retired")}, revokedRoleChanged}, // a role that grants no transactions:read
		{realtimeAccess{}, revokedMemberRemoved},
		{realtimeAccess{workspaceDeleted: true, role: role("owner")}, revokedWorkspaceDeleted},
		{realtimeAccess{accountDeleted: true, workspaceDeleted: true, role: role("owner")}, revokedAccountDeleted},
	} {
		if got := c.access.lost(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.access, got, c.want)
		}
	}
}
