package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// maxNameLength bounds a deployment name: it goes into stream and consumer names,
// which NATS keeps as file names.
const maxNameLength = 32

// ErrInvalidDeploymentName reports a deployment name that is empty, too long, or holds
// something other than ASCII letters, digits, '-' and '_'.
var ErrInvalidDeploymentName = errors.New("bus: invalid deployment name")

// Names are a deployment's names on NATS. Every one of them is derived here from the
// deployment's name, so deployments that share a NATS server never share a stream, a
// subject or a consumer.
type Names struct {
	// Deployment is the deployment's name.
	Deployment string
	// Stream is the JetStream stream holding every event of the deployment.
	Stream string
	// prefix starts every event subject; the workspace ID follows it.
	prefix string
}

// NamesOf returns the names of the deployment called name: 1 to 32 ASCII letters,
// digits, '-' or '_', so that it is one subject token and a valid part of a stream or
// consumer name.
func NamesOf(name string) (Names, error) {
	if err := checkName(name); err != nil {
		return Names{}, err
	}
	return Names{
		Deployment: name,
		Stream:     "FINLEDGER_EVENTS_" + name,
		prefix:     "finledger." + name + ".events.",
	}, nil
}

// checkName reports whether name may name a deployment.
func checkName(name string) error {
	if name == "" || len(name) > maxNameLength {
		return fmt.Errorf("%w: %q must be 1 to %d characters", ErrInvalidDeploymentName, name, maxNameLength)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("%w: %q may hold only letters, digits, '-' and '_'", ErrInvalidDeploymentName, name)
		}
	}
	return nil
}

// DefaultName is the name of a deployment given none: twelve hex digits of a digest of
// its owner's identity, so it stays the same for as long as the identity does, and two
// owners do not share one.
func DefaultName(ownerID string) string {
	sum := sha256.Sum256([]byte(ownerID))
	return hex.EncodeToString(sum[:6])
}

// Subject returns the subject of a workspace's events:
// "finledger.<deployment>.events.<workspace uuid>". It is also the Watermill topic to
// publish that workspace's events to, and what the realtime stream subscribes to.
func (n Names) Subject(workspaceID uuid.UUID) string {
	return n.prefix + workspaceID.String()
}

// AllEvents is the Watermill topic a consumer subscribes to: the subject wildcard
// covering every workspace's events, that is the whole stream. Publishers do not use
// it; they publish to Subject(workspaceID).
func (n Names) AllEvents() string {
	return n.prefix + ">"
}

// Durable returns the name of the deployment's durable consumer called consumer
// ("dispatcher", say).
func (n Names) Durable(consumer string) string {
	return "finledger-" + n.Deployment + "-" + consumer
}

// isEventSubject reports whether topic is a single workspace's subject in the stream.
func (n Names) isEventSubject(topic string) bool {
	rest, ok := strings.CutPrefix(topic, n.prefix)
	return ok && rest != "" && !strings.ContainsAny(rest, "*> \t\r\n.")
}
