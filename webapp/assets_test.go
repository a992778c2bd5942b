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

// The page names every module it imports in a modulepreload, so that a cold load
// fetches them in one round instead of discovering them import by import.
func TestThePagePreloadsEveryModule(t *testing.T) {
	page, err := fs.ReadFile(assetFiles, "assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	modules, err := fs.Glob(assetFiles, "assets/js/*.js")
	if err != nil || len(modules) == 0 {
		t.Fatalf("modules %v, %v", modules, err)
	}
	for _, m := range modules {
		href := "/app/" + strings.TrimPrefix(m, "assets/")
		tag := `<link rel="modulepreload" href="` + href + `">`
		if strings.HasSuffix(m, "/main.js") {
			tag = `<script type="module" src="` + href + `">`
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

// pageWeightLimit is what the app's own files may weigh gzipped, together: a cold load
// on a slow phone connection stays about a second.
const pageWeightLimit = 40 << 10

// The app's files (page, styles, scripts, icon) weigh under the limit gzipped.
func TestThePageWeighsUnderItsLimit(t *testing.T) {
	var total int
	err := fs.WalkDir(assetFiles, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(assetFiles, path)
		if err != nil {
			return err
		}
		var packed bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&packed, gzip.BestCompression)
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		total += packed.Len()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the app's files weigh %.1f KB gzipped", float64(total)/1024)
	if total > pageWeightLimit {
		t.Fatalf("the app's files weigh %d bytes gzipped, over the limit of %d", total, pageWeightLimit)
	}
}
