package check

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

// manifestScheme knows the API groups deploy/kubernetes uses (core, apps, policy), not
// the whole of client-go's: a manifest of another group fails to decode until its group
// is added here.
func manifestScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// decodeManifests decodes every document of the YAML files of dir strictly: an unknown
// or repeated field is an error, as `kubectl apply --validate=strict` makes it.
// CloudNativePG's documents (database.yaml) are decoded into cnpg.go's types.
func decodeManifests(t *testing.T, dir string) map[string]any {
	t.Helper()
	decoder := serializer.NewCodecFactory(manifestScheme(t), serializer.EnableStrict).UniversalDeserializer()
	files, err := filepath.Glob(filepath.Join(deployFile(t, dir), "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s (%v)", dir, err)
	}
	objects := map[string]any{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := docs.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			var obj any
			var kind string
			if cnpg, ok, err := decodeCNPG(doc); ok || err != nil {
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(file), err)
				}
				obj, kind = cnpg, cnpg.(interface{ GetObjectKind() schema.ObjectKind }).GetObjectKind().GroupVersionKind().Kind
			} else {
				o, gvk, err := decoder.Decode(doc, nil, nil)
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(file), err)
				}
				obj, kind = o, gvk.Kind
			}
			key := kind + "/" + objectName(obj)
			if _, dup := objects[key]; dup {
				t.Fatalf("%s defined twice", key)
			}
			objects[key] = obj
		}
	}
	return objects
}

func objectName(obj any) string {
	if o, ok := obj.(interface{ GetName() string }); ok {
		return o.GetName()
	}
	return ""
}

func TestKubernetesManifests(t *testing.T) {
	objects := decodeManifests(t, "kubernetes")
	var keys []string
	for k := range objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"Cluster/finledger-db", "ConfigMap/finledger", "ConfigMap/nats", "Deployment/finledger", "PodDisruptionBudget/finledger",
		"ScheduledBackup/finledger-db-daily", "Service/finledger", "Service/nats", "StatefulSet/nats"}
	if !slices.Equal(keys, want) {
		t.Fatalf("objects %v, want %v", keys, want)
	}

	cm := objects["ConfigMap/finledger"].(*corev1.ConfigMap)
	if cm.Data["FINLEDGER_ENV"] != "production" || cm.Data["FINLEDGER_NATS_REPLICAS"] != "3" {
		t.Errorf("ConfigMap finledger: %v", cm.Data)
	}
	if got := strings.Split(cm.Data["FINLEDGER_NATS_URL"], ","); !slices.Equal(got, []string{"nats://nats-0.nats:4222", "nats://nats-1.nats:4222", "nats://nats-2.nats:4222"}) {
		t.Errorf("FINLEDGER_NATS_URL lists %v, want the three pods of the StatefulSet", got)
	}
	for k := range cm.Data {
		if k == "FINLEDGER_SECRET_KEY" || k == "FINLEDGER_DATABASE_URL" || strings.Contains(k, "SECRET") {
			t.Errorf("ConfigMap holds %s, which belongs in the Secret", k)
		}
	}

	d := objects["Deployment/finledger"].(*appsv1.Deployment)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("Deployment replicas %v, want 3", d.Spec.Replicas)
	}
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("Deployment strategy %s: instances of different builds must not share the database", d.Spec.Strategy.Type)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz", "http")
	checkProbe(t, "liveness", c.LivenessProbe, "/healthz", "http")
	checkProbe(t, "startup", c.StartupProbe, "/healthz", "http")
	checkNonRoot(t, "finledger", pod, c)
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v, want CPU and memory requests and a memory limit", c.Resources)
	}
	var fromConfig, fromSecret bool
	for _, src := range c.EnvFrom {
		fromConfig = fromConfig || src.ConfigMapRef != nil && src.ConfigMapRef.Name == cm.Name
		fromSecret = fromSecret || src.SecretRef != nil && src.SecretRef.Name == "finledger"
	}
	if !fromConfig || !fromSecret {
		t.Errorf("settings from the ConfigMap %t, from the Secret %t", fromConfig, fromSecret)
	}
	// The API on http; the metrics and profiles on admin, which Prometheus scrapes on
	// each pod and no Service exposes.
	if len(c.Ports) != 2 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8080 || !strings.HasSuffix(cm.Data["FINLEDGER_HTTP_ADDR"], ":8080") ||
		c.Ports[1].Name != "admin" || c.Ports[1].ContainerPort != 9090 || !strings.HasSuffix(cm.Data["FINLEDGER_ADMIN_ADDR"], ":9090") {
		t.Errorf("ports %+v, listening on %s and %s", c.Ports, cm.Data["FINLEDGER_HTTP_ADDR"], cm.Data["FINLEDGER_ADMIN_ADDR"])
	}
	if a := d.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "9090" || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("pod annotations %v, want Prometheus to scrape /metrics on 9090", a)
	}
	svc := objects["Service/finledger"].(*corev1.Service)
	if !selects(svc.Spec.Selector, d.Spec.Template.Labels) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
		t.Errorf("Service finledger does not reach the Deployment's pods' API, or reaches more: %+v", svc.Spec)
	}
	checkDatabaseManifest(t, objects, c, pod)

	checkDatabaseManifest(t, objects, c, pod)

	pdb := objects["PodDisruptionBudget/finledger"].(*policyv1.PodDisruptionBudget)
	if !selects(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("PodDisruptionBudget selects %v", pdb.Spec.Selector.MatchLabels)
	}

	// NATS: three pods with JetStream on volumes of their own, routed through the
	// headless Service (nats_test.go checks the configuration itself).
	ss := objects["StatefulSet/nats"].(*appsv1.StatefulSet)
	if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 3 || ss.Spec.ServiceName != "nats" {
		t.Errorf("StatefulSet nats: replicas %v, service %s", ss.Spec.Replicas, ss.Spec.ServiceName)
	}
	if len(ss.Spec.VolumeClaimTemplates) != 1 {
		t.Errorf("StatefulSet nats: %d volume claim templates, want one for the store", len(ss.Spec.VolumeClaimTemplates))
	}
	nats := ss.Spec.Template.Spec.Containers[0]
	checkProbe(t, "nats readiness", nats.ReadinessProbe, "/healthz", "monitor")
	checkProbe(t, "nats liveness", nats.LivenessProbe, "/healthz", "monitor")
	checkNonRoot(t, "nats", ss.Spec.Template.Spec, nats)
	headless := objects["Service/nats"].(*corev1.Service)
	if headless.Spec.ClusterIP != corev1.ClusterIPNone || !headless.Spec.PublishNotReadyAddresses || !selects(headless.Spec.Selector, ss.Spec.Template.Labels) {
		t.Errorf("Service nats: %+v, want headless, publishing pods before they are ready", headless.Spec)
	}
}

// The Secret templates hold only placeholders, and the names the Deployment and the
// database's backups read.
func TestKubernetesSecretTemplate(t *testing.T) {
	objects := decodeManifests(t, "kubernetes/templates")
	s, ok := objects["Secret/finledger"].(*corev1.Secret)
	backup, ok2 := objects["Secret/finledger-db-backup"].(*corev1.Secret)
	if !ok || !ok2 || len(objects) != 2 {
		t.Fatalf("templates hold %v, want the Secrets finledger and finledger-db-backup", objects)
	}
	for _, key := range []string{"FINLEDGER_SECRET_KEY", "FINLEDGER_SESSION_JWKS_URL"} {
		if v, ok := s.StringData[key]; !ok || !strings.Contains(v, "REPLACE_WITH") {
			t.Errorf("%s: %q, want a REPLACE_WITH placeholder", key, v)
		}
	}
	// The Deployment names the database itself (database.yaml); a URL here would be
	// overridden, and mislead.
	if _, ok := s.StringData["FINLEDGER_DATABASE_URL"]; ok {
		t.Error("the Secret finledger holds FINLEDGER_DATABASE_URL, which the Deployment sets")
	}
	cluster := decodeManifests(t, "kubernetes")["Cluster/finledger-db"].(*cnpgCluster)
	creds := cluster.Spec.Backup.BarmanObjectStore.S3Credentials
	for _, ref := range []*cnpgSecretKeySelector{creds.AccessKeyID, creds.SecretAccessKey} {
		if v, ok := backup.StringData[ref.Key]; ref.Name != backup.Name || !ok || !strings.Contains(v, "REPLACE_WITH") {
			t.Errorf("backup credential %+v: %q in %s, want a REPLACE_WITH placeholder", ref, v, backup.Name)
		}
	}
}

func checkProbe(t *testing.T, name string, p *corev1.Probe, path, port string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s probe: none over HTTP", name)
		return
	}
	if got, _, _ := strings.Cut(p.HTTPGet.Path, "?"); got != path || p.HTTPGet.Port != intstr.FromString(port) {
		t.Errorf("%s probe: GET %s on %s, want %s on %s", name, p.HTTPGet.Path, p.HTTPGet.Port.String(), path, port)
	}
}

// checkNonRoot checks that a container runs as a user other than root, cannot gain
// privileges, keeps no capability and cannot write its root file system.
func checkNonRoot(t *testing.T, name string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	ps, cs := pod.SecurityContext, c.SecurityContext
	if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser == 0 {
		t.Errorf("%s: pod security context %+v, want runAsNonRoot and a user other than 0", name, ps)
	}
	if ps != nil && (ps.SeccompProfile == nil || ps.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault) {
		t.Errorf("%s: no RuntimeDefault seccomp profile", name)
	}
	if cs == nil || cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem ||
		cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation ||
		cs.Capabilities == nil || !slices.Contains(cs.Capabilities.Drop, "ALL") {
		t.Errorf("%s: container security context %+v, want a read-only root, no privilege escalation, every capability dropped", name, cs)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("%s: the service account token is mounted; nothing here talks to the API server", name)
	}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
