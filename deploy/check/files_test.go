package check

import (
	"os"
	"path/filepath"
	"testing"
)

// deployFile returns the path of a file of deploy/ (this package lives in deploy/check).
func deployFile(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func readDeployFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(deployFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
