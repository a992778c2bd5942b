package check

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// dockerfileStages parses a Dockerfile of deploy/, failing on a warning of the parser,
// and returns its stages.
func dockerfileStages(t *testing.T, name string) []instructions.Stage {
	t.Helper()
	ast, err := parser.Parse(bytes.NewReader(readDeployFile(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ast.Warnings {
		t.Errorf("parser warning: %s", w.Short)
	}
	stages, _, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stages
}

// The image is built in two stages, the binary static and without the build machine's
// paths, and the final stage runs as a user other than root.
func TestDockerfile(t *testing.T) {
	stages := dockerfileStages(t, "container/Dockerfile")
	if len(stages) != 2 {
		t.Fatalf("%d stages, want a build stage and the final one", len(stages))
	}
	build, final := stages[0], stages[1]
	if !strings.HasPrefix(build.BaseName, "golang:") {
		t.Errorf("build stage from %s, want a golang image", build.BaseName)
	}
	if !strings.HasPrefix(final.BaseName, "gcr.io/distroless/static") && final.BaseName != "scratch" {
		t.Errorf("final stage from %s, want distroless/static or scratch", final.BaseName)
	}

	var cgoOff, trimpath bool
	for _, cmd := range build.Commands {
		switch c := cmd.(type) {
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				if kv.Key == "CGO_ENABLED" && kv.Value == "0" {
					cgoOff = true
				}
			}
		case *instructions.RunCommand:
			line := strings.Join(c.CmdLine, " ")
			if strings.Contains(line, "go build") {
				trimpath = strings.Contains(line, "-trimpath")
				if strings.Contains(line, "CGO_ENABLED=0") {
					cgoOff = true
				}
			}
		}
	}
	if !cgoOff || !trimpath {
		t.Errorf("build stage: CGO_ENABLED=0 %t, go build -trimpath %t; want both", cgoOff, trimpath)
	}

	var user string
	var exposed []string
	var entrypoint []string
	var copied bool
	for _, cmd := range final.Commands {
		switch c := cmd.(type) {
		case *instructions.UserCommand:
			user = c.User
		case *instructions.ExposeCommand:
			exposed = append(exposed, c.Ports...)
		case *instructions.EntrypointCommand:
			entrypoint = c.CmdLine
		case *instructions.CopyCommand:
			copied = copied || c.From == build.Name || c.From == "0"
		case *instructions.HealthCheckCommand:
			t.Errorf("HEALTHCHECK in an image without a shell or an HTTP client cannot run")
		}
	}
	if name, _, _ := strings.Cut(user, ":"); name == "" || name == "root" || name == "0" {
		t.Errorf("final stage runs as %q, want a user other than root", user)
	}
	if !slices.Contains(exposed, "8080") {
		t.Errorf("EXPOSE %v, want 8080 (FINLEDGER_HTTP_ADDR)", exposed)
	}
	if !copied {
		t.Error("the final stage copies nothing from the build stage")
	}
	if len(entrypoint) != 1 || !strings.HasSuffix(entrypoint[0], "/finledger") {
		t.Errorf("ENTRYPOINT %v, want the finledger binary in exec form", entrypoint)
	}
}

// The database image of compose.yaml: one stage on Debian with PostgreSQL 15 and
// pg_auto_failover from Debian's packages, run as postgres, PGDATA and HOME (where
// pg_autoctl keeps its configuration and state) under the volume's mount point.
func TestPgAutoFailoverDockerfile(t *testing.T) {
	stages := dockerfileStages(t, "container/pg_auto_failover.Dockerfile")
	if len(stages) != 1 || !strings.HasPrefix(stages[0].BaseName, "debian:bookworm") {
		t.Fatalf("stages %+v, want one on debian:bookworm", stages)
	}
	var installed, user string
	env := map[string]string{}
	var exposed []string
	for _, cmd := range stages[0].Commands {
		switch c := cmd.(type) {
		case *instructions.RunCommand:
			if line := strings.Join(c.CmdLine, " "); strings.Contains(line, "apt-get install") {
				installed = line
			}
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env[kv.Key] = kv.Value
			}
		case *instructions.UserCommand:
			user = c.User
		case *instructions.ExposeCommand:
			exposed = append(exposed, c.Ports...)
		}
	}
	for _, pkg := range []string{"postgresql-15", "postgresql-15-auto-failover", "pg-auto-failover-cli"} {
		if !slices.Contains(strings.Fields(installed), pkg) {
			t.Errorf("apt-get install %q, want %s", installed, pkg)
		}
	}
	if user != "postgres" {
		t.Errorf("runs as %q, want postgres", user)
	}
	if !strings.HasPrefix(env["PATH"], "/usr/lib/postgresql/15/bin:") || env["HOME"] != "/var/lib/postgresql" ||
		!strings.HasPrefix(env["PGDATA"], "/var/lib/postgresql/") {
		t.Errorf("ENV %v, want pg_autoctl on PATH, HOME and PGDATA under /var/lib/postgresql", env)
	}
	if !slices.Contains(exposed, "5432") {
		t.Errorf("EXPOSE %v, want 5432", exposed)
	}
}
