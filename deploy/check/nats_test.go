package check

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	corev1 "k8s.io/api/core/v1"
)

// natsOptions loads a node's configuration as nats-server does, with serverName in the
// environment variable the file names its server by.
func natsOptions(t *testing.T, path, variable, serverName string) *server.Options {
	t.Helper()
	t.Setenv(variable, serverName)
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return opts
}

// checkNATSNode checks a node of a three-node cluster with JetStream, routed to all
// three nodes (the route to itself is dropped by the server).
func checkNATSNode(t *testing.T, opts *server.Options, serverName string, routes []string) {
	t.Helper()
	if opts.ServerName != serverName || !opts.JetStream || opts.StoreDir != "/data" {
		t.Errorf("%s: server name %q, JetStream %t, store %q", serverName, opts.ServerName, opts.JetStream, opts.StoreDir)
	}
	if opts.Port != 4222 || opts.HTTPPort != 8222 || opts.Cluster.Port != 6222 || opts.Cluster.Name != "finledger" {
		t.Errorf("%s: client %d, monitoring %d, cluster %s on %d", serverName, opts.Port, opts.HTTPPort, opts.Cluster.Name, opts.Cluster.Port)
	}
	var got []string
	for _, r := range opts.Routes {
		got = append(got, r.String())
	}
	if !slices.Equal(got, routes) {
		t.Errorf("%s: routes %v, want %v", serverName, got, routes)
	}
}

func TestNATSConfigOfCompose(t *testing.T) {
	routes := []string{"nats-route://nats-1:6222", "nats-route://nats-2:6222", "nats-route://nats-3:6222"}
	for _, name := range []string{"nats-1", "nats-2", "nats-3"} {
		checkNATSNode(t, natsOptions(t, deployFile(t, "nats/nats.conf"), "NATS_SERVER_NAME", name), name, routes)
	}
}

func TestNATSConfigOfKubernetes(t *testing.T) {
	cm := decodeManifests(t, "kubernetes")["ConfigMap/nats"].(*corev1.ConfigMap)
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(cm.Data["nats.conf"]), 0o600); err != nil {
		t.Fatal(err)
	}
	routes := []string{"nats-route://nats-0.nats:6222", "nats-route://nats-1.nats:6222", "nats-route://nats-2.nats:6222"}
	for _, name := range []string{"nats-0", "nats-1", "nats-2"} {
		checkNATSNode(t, natsOptions(t, path, "POD_NAME", name), name, routes)
	}
}
