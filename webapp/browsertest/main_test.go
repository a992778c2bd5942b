package browsertest_test

import (
	"testing"

	"github.com/finledger/finledger/internal/testkit/browser"
)

// The tests share one browser, each in a browser context of its own.
func TestMain(m *testing.M) { browser.Main(m) }
