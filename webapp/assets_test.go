package webapp

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
)

// onDemand are the modules a page imports when it is opened (import('./x.js')), as
// "/app/js/x.js".
func onDemand(t *testing.T) map[string]bool {
	t.Helper()
	modules, err := fs.Glob(assetFiles, "assets/js/*.js")
	if err != nil || len(modules) == 0 {
		t.Fatalf("modules %v, %v", modules, err)
	}
	out := map[string]bool{}
	for _, m := range modules {
		script, err := fs.ReadFile(assetFiles, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, found := range regexp.MustCompile(`import\('\./([\w-]+\.js)'\)`).FindAllSubmatch(script, -1) {
			out["/app/js/"+string(found[1])] = true
		}
	}
	return out
}

// The page names every module it imports in a modulepreload, so that a cold load
// fetches them in one round instead of discovering them import by import; a module
// imported only when its page is opened is never preloaded, or it would weigh on every
// cold load.
func TestThePagePreloadsEveryModule(t *testing.T) {
	page, err := fs.ReadFile(assetFiles, "assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	modules, err := fs.Glob(assetFiles, "assets/js/*.js")
	if err != nil || len(modules) == 0 {
		t.Fatalf("modules %v, %v", modules, err)
	}
	later := onDemand(t)
	if len(later) == 0 {
		t.Error("no module is imported on demand")
	}
	for _, m := range modules {
		href := "/app/" + strings.TrimPrefix(m, "assets/")
		tag := `<link rel="modulepreload" href="` + href + `">`
		if strings.HasSuffix(m, "/main.js") {
			tag = `<script type="module" src="` + href + `">`
		}
		if later[href] {
			if strings.Contains(string(page), href) {
				t.Errorf("index.html names %s, which is imported when its page is opened", href)
			}
			continue
		}
		if !strings.Contains(string(page), tag) {
			t.Errorf("index.html lacks %s", tag)
		}
	}
}

// The app listens to exactly the public events the realtime stream carries, and its
// reset: a name the server never sends would be a listener that never fires.
func TestTheAppListensToTheStreamsEvents(t *testing.T) {
	script, err := fs.ReadFile(assetFiles, "assets/js/api.js")
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`(?s)const liveEvents = \[(.*?)\];`).FindSubmatch(script)
	if list == nil {
		t.Fatal("api.js has no liveEvents")
	}
	var got []string
	for _, m := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(list[1], -1) {
		got = append(got, string(m[1]))
	}
	want := []string{"reset"}
	for _, name := range domain.HookEvents {
		if name != domain.HookTest { // sent to webhooks only, never in a stream
			want = append(want, name)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the app listens to %v; the stream carries %v", got, want)
	}
}

// pageWeightLimit is what a cold load of the app may fetch of its own files gzipped:
// the page and the files it names (styles, icon, the script and the modules it
// preloads). On a slow phone connection it stays about a second. A module imported when
// its page is opened (the import page's) and its styles are fetched then, not on every
// cold load, and count only in the whole app's weight, which is reported.
const pageWeightLimit = 40 << 10

// gzipped is a file's size compressed as the server serves it.
func gzipped(t *testing.T, path string) int {
	t.Helper()
	data, err := fs.ReadFile(assetFiles, path)
	if err != nil {
		t.Fatal(err)
	}
	var packed bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&packed, gzip.BestCompression)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return packed.Len()
}

// What a cold load fetches of the app's files weighs under the limit gzipped.
func TestThePageWeighsUnderItsLimit(t *testing.T) {
	page, err := fs.ReadFile(assetFiles, "assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	cold := map[string]bool{"assets/index.html": true}
	for _, m := range regexp.MustCompile(`(?:href|src)="/app/([^"]+)"`).FindAllSubmatch(page, -1) {
		cold["assets/"+string(m[1])] = true
	}
	var coldTotal, whole int
	err = fs.WalkDir(assetFiles, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n := gzipped(t, path)
		whole += n
		if cold[path] {
			coldTotal += n
			delete(cold, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cold) > 0 {
		t.Fatalf("index.html names files the app does not hold: %v", cold)
	}
	t.Logf("a cold load fetches %.1f KB gzipped of the app's files; the whole app weighs %.1f KB", float64(coldTotal)/1024, float64(whole)/1024)
	if coldTotal > pageWeightLimit {
		t.Fatalf("a cold load fetches %d bytes gzipped, over the limit of %d", coldTotal, pageWeightLimit)
	}
}
