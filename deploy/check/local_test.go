package check

import (
	"os/exec"
	"testing"
)

// deploy/local/run.sh parses as bash. What it does is tested by running it:
// cmd/finledger/deploy_local_test.go in the service's module.
func TestLocalScriptParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if out, err := exec.Command(bash, "-n", deployFile(t, "local/run.sh")).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
}
