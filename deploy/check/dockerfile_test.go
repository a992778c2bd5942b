package check

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// dockerfileStages parses a Dockerfile of deploy/, failing on a warning of the parser,
// and returns its stages, each base named as a build with no --build-arg names it: a
// build argument declared before the first FROM (ARG GO_IMAGE=golang:...) replaced by
// its default.
func dockerfileStages(t *testing.T, name string) []instructions.Stage {
	t.Helper()
	stages, metaArgs := parseDockerfile(t, name)
	defaults := map[string]string{}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			if kv.Value != nil {
				defaults[kv.Key] = *kv.Value
			}
		}
	}
	for i := range stages {
		stages[i].BaseName = os.Expand(stages[i].BaseName, func(k string) string { return defaults[k] })
	}
	return stages
}

func parseDockerfile(t *testing.T, name string) ([]instructions.Stage, []instructions.ArgCommand) {
	t.Helper()
	ast, err := parser.Parse(bytes.NewReader(readDeployFile(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ast.Warnings {
		t.Errorf("parser warning: %s", w.Short)
	}
	stages, metaArgs, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stages, metaArgs
}

// The images' Dockerfiles and the bases they are built on.
var (
	imageDockerfiles = []string{"container/Dockerfile", "container/pg_auto_failover.Dockerfile",
		"container/nats.Dockerfile", "container/caddy.Dockerfile"}
	baseDockerfiles = []string{"container/base-golang.Dockerfile", "container/base-static.Dockerfile"}
)

// Every base is a build argument whose default is a public image, so that the files
// build unchanged where a registry answers, and `make images` gives the bases it makes
// where none does (container/bases.sh). No file names a Dockerfile frontend to fetch
// (`# syntax=`): that, too, would need a registry.
func TestDockerfileBasesAreArguments(t *testing.T) {
	public := []string{"golang:1.26-bookworm", "gcr.io/distroless/static-debian12:nonroot", "debian:bookworm-slim"}
	for _, name := range append(slices.Clone(imageDockerfiles), baseDockerfiles...) {
		if syntaxDirective.Match(readDeployFile(t, name)) {
			t.Errorf("%s: a # syntax= line, which pulls the frontend from a registry", name)
		}
		raw, _ := parseDockerfile(t, name)
		expanded := dockerfileStages(t, name)
		var stageNames []string
		for i, st := range raw {
			base := st.BaseName
			switch {
			case base == "scratch" || slices.Contains(stageNames, base):
			case !strings.HasPrefix(base, "${") || !strings.HasSuffix(base, "}"):
				t.Errorf("%s: FROM %s, want FROM ${ARG} with a public image as its default", name, base)
			case !slices.Contains(public, expanded[i].BaseName):
				t.Errorf("%s: FROM %s defaults to %q, want one of %v", name, base, expanded[i].BaseName, public)
			}
			if st.Name != "" {
				stageNames = append(stageNames, st.Name)
			}
		}
	}
}

var syntaxDirective = regexp.MustCompile(`(?im)^#\s*syntax\s*=`)

// finalStage returns the user, exposed ports, entry point and command of a stage.
func finalStage(st instructions.Stage) (user string, exposed, entrypoint, cmd []string) {
	for _, c := range st.Commands {
		switch c := c.(type) {
		case *instructions.UserCommand:
			user = c.User
		case *instructions.ExposeCommand:
			exposed = append(exposed, c.Ports...)
		case *instructions.EntrypointCommand:
			entrypoint = c.CmdLine
		case *instructions.CmdCommand:
			cmd = c.CmdLine
		}
	}
	return user, exposed, entrypoint, cmd
}

// goInstall returns the stage's go install line and the default of the version argument
// it installs at, failing unless it builds static (CGO_ENABLED=0) and -trimpath.
func goInstall(t *testing.T, st instructions.Stage, pkg, versionArg string) (line, version string) {
	t.Helper()
	var cgoOff bool
	for _, cmd := range st.Commands {
		switch c := cmd.(type) {
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				cgoOff = cgoOff || kv.Key == "CGO_ENABLED" && kv.Value == "0"
			}
		case *instructions.ArgCommand:
			for _, kv := range c.Args {
				if kv.Key == versionArg && kv.Value != nil {
					version = *kv.Value
				}
			}
		case *instructions.RunCommand:
			if l := strings.Join(c.CmdLine, " "); strings.Contains(l, "go install") {
				line = l
			}
		}
	}
	if !cgoOff || !strings.Contains(line, "-trimpath") || !strings.Contains(line, pkg+"@${"+versionArg+"}") {
		t.Errorf("build stage: CGO_ENABLED=0 %t, go install %q; want static, -trimpath, %s@${%s}", cgoOff, line, pkg, versionArg)
	}
	return line, version
}

// requiredVersion returns the version of module that a go.mod of the repository (a path
// from deploy/) requires.
func requiredVersion(t *testing.T, gomod, module string) string {
	t.Helper()
	for _, line := range strings.Split(string(readDeployFile(t, gomod)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) >= 2 && f[0] == module {
			return f[1]
		}
	}
	t.Fatalf("%s requires no %s", gomod, module)
	return ""
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

// The NATS image of compose.yaml: nats-server built static from its module at the
// version the service's go.mod requires (the server the service is tested against), on
// distroless as a user other than root, its entry point nats-server (as the nats image's
// is: compose's command is flags), with the wget compose's health check runs and a store
// on /data.
func TestNATSDockerfile(t *testing.T) {
	stages := goModuleImage(t, "container/nats.Dockerfile", "github.com/nats-io/nats-server/v2", "NATS_VERSION",
		"../go.mod", "github.com/nats-io/nats-server/v2", "the service's go.mod")
	_, exposed, entrypoint, _ := finalStage(stages[1])
	if !slices.Equal(entrypoint, []string{"/usr/local/bin/nats-server"}) {
		t.Errorf("ENTRYPOINT %v, want nats-server in exec form", entrypoint)
	}
	for _, port := range []string{"4222", "6222", "8222"} {
		if !slices.Contains(exposed, port) {
			t.Errorf("EXPOSE %v, want %s (nats/nats.conf)", exposed, port)
		}
	}
	var built string
	for _, c := range stages[0].Commands {
		if c, ok := c.(*instructions.RunCommand); ok {
			built += strings.Join(c.CmdLine, " ") + "\n"
		}
	}
	if !strings.Contains(built, "busybox") || !strings.Contains(built, "/usr/local/bin/wget") ||
		!regexp.MustCompile(`-o 65532 -g 65532 \S*/data\b`).MatchString(built) {
		t.Errorf("build stage runs %q; want busybox's wget and /data owned by 65532", built)
	}
	if !copiesFrom(stages[1], stages[0].Name) {
		t.Error("the final stage copies nothing from the build stage")
	}
}

// goModuleImage checks the shape the NATS and Caddy images share, and returns their
// stages: a golang build stage that installs pkg at the version its ARG versionArg
// names, which must be what gomod (read for whose) requires of module, and a
// distroless/static final stage run by a user other than root.
func goModuleImage(t *testing.T, path, pkg, versionArg, gomod, module, whose string) []instructions.Stage {
	t.Helper()
	stages := dockerfileStages(t, path)
	if len(stages) != 2 || !strings.HasPrefix(stages[0].BaseName, "golang:") ||
		!strings.HasPrefix(stages[1].BaseName, "gcr.io/distroless/static") {
		t.Fatalf("stages from %v, want a golang build stage and distroless/static", baseNames(stages))
	}
	_, version := goInstall(t, stages[0], pkg, versionArg)
	if want := requiredVersion(t, gomod, module); version != want {
		t.Errorf("%s %s, %s requires %s", versionArg, version, whose, want)
	}
	user, _, _, _ := finalStage(stages[1])
	if name, _, _ := strings.Cut(user, ":"); name == "" || name == "root" || name == "0" {
		t.Errorf("runs as %q, want a user other than root", user)
	}
	return stages
}

func copiesFrom(st instructions.Stage, from string) bool {
	for _, c := range st.Commands {
		if c, ok := c.(*instructions.CopyCommand); ok && c.From == from {
			return true
		}
	}
	return false
}

// The load balancer's image: Caddy built static from its module at the version
// deploy/check validates the Caddyfile with (deploy/go.mod), on distroless as a user
// other than root, running `caddy run` on /etc/caddy/Caddyfile as the caddy image does.
func TestCaddyDockerfile(t *testing.T) {
	stages := goModuleImage(t, "container/caddy.Dockerfile", "github.com/caddyserver/caddy/v2/cmd/caddy", "CADDY_VERSION",
		"go.mod", "github.com/caddyserver/caddy/v2", "deploy/go.mod (the Caddyfile's check)")
	_, exposed, entrypoint, cmd := finalStage(stages[1])
	if len(entrypoint) != 0 || !slices.Equal(cmd, []string{"caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"}) {
		t.Errorf("ENTRYPOINT %v CMD %v, want caddy run on /etc/caddy/Caddyfile", entrypoint, cmd)
	}
	if !slices.Contains(exposed, "8080") {
		t.Errorf("EXPOSE %v, want 8080 (caddy/Caddyfile)", exposed)
	}
}

func baseNames(stages []instructions.Stage) []string {
	var names []string
	for _, st := range stages {
		names = append(names, st.BaseName)
	}
	return names
}
