// Package gotool builds the programs tests run beside the service (stripe-mock,
// versitygw) from the Go module proxy at the version their package pins, once per
// machine, into the user's cache folder: a fresh machine needs Go and the proxy, and
// nothing installed by hand.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
)

// builds are this process's builds, one per program and version.
var builds sync.Map // "pkg@version" -> func() (string, error)

// Binary returns the path of the main package pkg built at version, building it first
// if this machine has not: `go install pkg@version` into
// <cache>/finledger-test-tools/<name>@<version>/<name>. Test processes that need it at
// once (go test runs packages side by side) take turns on a lock file, so that the
// first builds it and the others find it built; a build lands in a folder of its own
// and is renamed into place, so that none ever runs half a binary.
func Binary(pkg, version string) (string, error) {
	build, _ := builds.LoadOrStore(pkg+"@"+version, sync.OnceValues(func() (string, error) { return install(pkg, version) }))
	return build.(func() (string, error))()
}

func install(pkg, version string) (string, error) {
	name := path.Base(pkg)
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%s: no cache folder: %w", name, err)
	}
	root := filepath.Join(cache, "finledger-test-tools")
	dir := filepath.Join(root, name+"@"+version)
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	lock, err := os.OpenFile(filepath.Join(root, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer lock.Close() // which releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("%s: lock the build: %w", name, err)
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // built by another process while this one waited
	}
	tmp, err := os.MkdirTemp(root, name+"-build-")
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goTool, "install", pkg+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s %s: %w\n%s", name, version, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return bin, nil
}
