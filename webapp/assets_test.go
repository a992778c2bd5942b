package webapp

import (
	"io/fs"
	"strings"
	"testing"
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
