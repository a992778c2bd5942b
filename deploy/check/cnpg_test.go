package check

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// CloudNativePG's API (postgresql.cnpg.io/v1) is not a dependency of this module: its
// Go modules (github.com/cloudnative-pg/api, github.com/cloudnative-pg/cloudnative-pg)
// could not be fetched where these checks were written. The types below are the part of
// its Cluster and ScheduledBackup that database.yaml uses, with the JSON names of the
// API's Go types (ClusterSpec, PostgresConfiguration, SynchronousReplicaConfiguration,
// BackupConfiguration, BarmanObjectStoreConfiguration, ScheduledBackupSpec). Decoding
// is strict, so a field misspelt or out of place in database.yaml fails; a field the
// API has but these types lack fails too, until it is added here. Replace them with
// github.com/cloudnative-pg/api's apiv1.Cluster when that module can be fetched.
const cnpgAPIVersion = "postgresql.cnpg.io/v1"

type cnpgCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Instances             int    `json:"instances"`
		ImageName             string `json:"imageName,omitempty"`
		PrimaryUpdateStrategy string `json:"primaryUpdateStrategy,omitempty"`
		PostgresConfiguration struct {
			Synchronous *struct {
				Method         string `json:"method"`
				Number         int    `json:"number"`
				DataDurability string `json:"dataDurability,omitempty"`
			} `json:"synchronous,omitempty"`
			Parameters map[string]string `json:"parameters,omitempty"`
		} `json:"postgresql"`
		Bootstrap struct {
			InitDB *struct {
				Database string `json:"database"`
				Owner    string `json:"owner"`
			} `json:"initdb,omitempty"`
		} `json:"bootstrap"`
		StorageConfiguration struct {
			Size string `json:"size"`
		} `json:"storage"`
		Resources corev1.ResourceRequirements `json:"resources,omitempty"`
		Backup    *struct {
			RetentionPolicy   string `json:"retentionPolicy,omitempty"`
			BarmanObjectStore *struct {
				DestinationPath string `json:"destinationPath"`
				S3Credentials   *struct {
					AccessKeyID     *cnpgSecretKeySelector `json:"accessKeyId"`
					SecretAccessKey *cnpgSecretKeySelector `json:"secretAccessKey"`
				} `json:"s3Credentials,omitempty"`
				Wal *struct {
					Compression string `json:"compression,omitempty"`
				} `json:"wal,omitempty"`
				Data *struct {
					Compression string `json:"compression,omitempty"`
				} `json:"data,omitempty"`
			} `json:"barmanObjectStore,omitempty"`
		} `json:"backup,omitempty"`
	} `json:"spec"`
}

type cnpgSecretKeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

type cnpgScheduledBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Schedule             string `json:"schedule"`
		BackupOwnerReference string `json:"backupOwnerReference,omitempty"`
		Method               string `json:"method,omitempty"`
		Cluster              struct {
			Name string `json:"name"`
		} `json:"cluster"`
	} `json:"spec"`
}

// decodeCNPG decodes doc strictly when it is a document of CloudNativePG's API; ok is
// false for any other.
func decodeCNPG(doc []byte) (obj any, ok bool, err error) {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil || meta.APIVersion != cnpgAPIVersion {
		return nil, false, nil
	}
	switch meta.Kind {
	case "Cluster":
		obj = &cnpgCluster{}
	case "ScheduledBackup":
		obj = &cnpgScheduledBackup{}
	default:
		return nil, true, &unknownKindError{meta.Kind}
	}
	return obj, true, yaml.UnmarshalStrict(bytes.TrimSpace(doc), obj)
}

type unknownKindError struct{ kind string }

func (e *unknownKindError) Error() string {
	return cnpgAPIVersion + " " + e.kind + ": no type for it in cnpg_test.go"
}

// checkDatabaseManifest checks database.yaml's cluster, and that the Deployment's
// container c reaches its primary through the operator's read-write Service.
func checkDatabaseManifest(t *testing.T, objects map[string]any, c corev1.Container, pod corev1.PodSpec) {
	t.Helper()
	cluster := objects["Cluster/finledger-db"].(*cnpgCluster)
	spec := cluster.Spec
	if spec.Instances != 3 {
		t.Errorf("Cluster: %d instances, want 3 (a primary and two standbys)", spec.Instances)
	}
	// Quorum synchronous replication: a commit waits for one standby of the two.
	if s := spec.PostgresConfiguration.Synchronous; s == nil || s.Method != "any" || s.Number != 1 || s.DataDurability != "required" {
		t.Errorf("Cluster: synchronous %+v, want method any, number 1, dataDurability required", s)
	}
	if spec.Bootstrap.InitDB == nil || spec.Bootstrap.InitDB.Database != "finledger" || spec.Bootstrap.InitDB.Owner != "finledger" {
		t.Errorf("Cluster: bootstrap %+v, want the database finledger owned by finledger", spec.Bootstrap)
	}
	if spec.StorageConfiguration.Size == "" {
		t.Error("Cluster: no storage size")
	}
	// Backups: WAL and base backups to S3, credentials from a Secret, a retention.
	b := spec.Backup
	if b == nil || b.BarmanObjectStore == nil || !strings.HasPrefix(b.BarmanObjectStore.DestinationPath, "s3://") || b.RetentionPolicy == "" {
		t.Fatalf("Cluster: backup %+v, want a barmanObjectStore on s3:// and a retention policy", b)
	}
	if creds := b.BarmanObjectStore.S3Credentials; creds == nil || creds.AccessKeyID == nil || creds.SecretAccessKey == nil ||
		creds.AccessKeyID.Name == "" || creds.AccessKeyID.Name != creds.SecretAccessKey.Name {
		t.Fatalf("Cluster: S3 credentials %+v, want both keys from one Secret", creds)
	}
	sb := objects["ScheduledBackup/finledger-db-daily"].(*cnpgScheduledBackup)
	if sb.Spec.Cluster.Name != cluster.Name || sb.Spec.Method != "barmanObjectStore" || len(strings.Fields(sb.Spec.Schedule)) != 6 {
		t.Errorf("ScheduledBackup: %+v, want base backups of %s to its object store on a six-field schedule", sb.Spec, cluster.Name)
	}

	// The Deployment: the operator's read-write Service, which follows the primary; the
	// password from the operator's app Secret; the server verified against its CA.
	var dbURL string
	var password *corev1.SecretKeySelector
	for _, e := range c.Env {
		switch e.Name {
		case "FINLEDGER_DATABASE_URL":
			dbURL = e.Value
		case "PGPASSWORD":
			if e.ValueFrom != nil {
				password = e.ValueFrom.SecretKeyRef
			}
		}
	}
	u, err := url.Parse(dbURL)
	if err != nil || u.Scheme != "postgres" || u.Host != cluster.Name+"-rw:5432" || u.Path != "/"+spec.Bootstrap.InitDB.Database ||
		u.User.Username() != spec.Bootstrap.InitDB.Owner {
		t.Fatalf("FINLEDGER_DATABASE_URL %q (%v), want %s on %s-rw:5432", dbURL, err, spec.Bootstrap.InitDB.Database, cluster.Name)
	}
	if _, set := u.User.Password(); set {
		t.Error("FINLEDGER_DATABASE_URL holds a password; it belongs in a Secret")
	}
	if password == nil || password.Name != cluster.Name+"-app" || password.Key != "password" {
		t.Errorf("PGPASSWORD from %+v, want the operator's Secret %s-app", password, cluster.Name)
	}
	q := u.Query()
	var caMount string
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == cluster.Name+"-ca" &&
				slices.ContainsFunc(v.Secret.Items, func(k corev1.KeyToPath) bool { return k.Key == "ca.crt" && k.Path == "ca.crt" }) {
				caMount = m.MountPath
			}
		}
	}
	if q.Get("sslmode") != "verify-full" || caMount == "" || q.Get("sslrootcert") != caMount+"/ca.crt" {
		t.Errorf("FINLEDGER_DATABASE_URL %s with the operator's CA mounted on %q, want sslmode=verify-full against it", dbURL, caMount)
	}
}
