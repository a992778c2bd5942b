package domain

import (
	"os/exec"
	"strings"
	"testing"
)

// The domain is pure: it reaches no database driver and no other package of this
// project, so that readers of events and rules never pull the engine in.
func TestDomainImportsNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const module = "github.com/finledger/finledger/"
	self := module + "domain"
	var found []string
	for dep := range strings.FieldsSeq(string(out)) {
		switch {
		case strings.HasPrefix(dep, "github.com/jackc/pgx"):
			found = append(found, dep)
		case strings.HasPrefix(dep, module) && dep != self:
			found = append(found, dep)
		}
	}
	if len(found) > 0 {
		t.Fatalf("package domain depends on %v", found)
	}
}
