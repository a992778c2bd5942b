package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is the front page and docs/ holds the rest, one page per reader. These tests
// keep the front page short and every link between the pages (and from BENCHMARKS.md and
// deploy/README.md) pointing at something.

// repoRoot is the repository, seen from this package's folder.
const repoRoot = "../.."

// maxFrontPageLines is what the README may grow to before its text belongs in docs/.
const maxFrontPageLines = 250

func TestDocsFrontPageIsShort(t *testing.T) {
	readme := readPage(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= maxFrontPageLines {
		t.Errorf("README.md has %d lines; the front page stays under %d, the rest goes to docs/", n, maxFrontPageLines)
	}
}

func TestDocsLinksResolve(t *testing.T) {
	pages := []string{"README.md", "BENCHMARKS.md", "deploy/README.md"}
	for _, pattern := range []string{"docs/*.md", "docs/*/*.md"} {
		found, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			rel, err := filepath.Rel(repoRoot, f)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
	}
	if len(pages) < 8 {
		t.Fatalf("found only %v: the README and the pages of docs/ should all be here", pages)
	}
	links := 0
	for _, page := range pages {
		for _, target := range linksOf(readPage(t, page)) {
			links++
			if err := checkLink(page, target); err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
			}
		}
	}
	if links == 0 {
		t.Fatal("no links found: the pattern that finds them is broken")
	}
}

// The anchors are those a Markdown renderer gives headings: the check must agree with
// it on the headings the pages link to.
func TestDocsAnchorsAreTheRenderersOnes(t *testing.T) {
	got := anchorsOf("# Finledger\n## The API's description\n```sh\n# not a heading\n```\n## `finledger verify`\n## Ready-made deployments\n## Ready-made deployments\n")
	for _, want := range []string{"finledger", "the-apis-description", "finledger-verify", "ready-made-deployments", "ready-made-deployments-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block counted as a heading")
	}
}

// readPage reads a page of the repository by its path from the root.
func readPage(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	fence      = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	comment    = regexp.MustCompile(`(?s)<!--.*?-->`)
	linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// linksOf returns the targets of a page's Markdown links and images, leaving out what
// code blocks, code spans and comments show.
func linksOf(page string) []string {
	text := comment.ReplaceAllString(codeSpan.ReplaceAllString(fence.ReplaceAllString(page, ""), ""), "")
	var out []string
	for _, m := range linkTarget.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkLink says why a link of page does not reach a file of the repository, or a
// heading of it when it names one.
func checkLink(page, target string) error {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return fmt.Errorf("leads outside the repository")
	}
	path, anchor, _ := strings.Cut(target, "#")
	// A page is read where it lies, and alone: a link climbing out of its folder leads
	// where a reader of that folder need not be. Such a file is named as a path instead.
	if strings.HasPrefix(path, "../") || strings.HasPrefix(path, "/") {
		return fmt.Errorf("climbs out of the page's folder; name the file as a path instead")
	}
	file := filepath.Join(filepath.Dir(filepath.FromSlash(page)), filepath.FromSlash(path))
	if path == "" {
		file = filepath.FromSlash(page)
	}
	if rel := filepath.Clean(file); rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("leaves the repository")
	}
	info, err := os.Stat(filepath.Join(repoRoot, file))
	if err != nil {
		return fmt.Errorf("no such file: %w", err)
	}
	if anchor == "" {
		return nil
	}
	if info.IsDir() || filepath.Ext(file) != ".md" {
		return fmt.Errorf("names a heading of something that is not a page")
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	if !anchorsOf(string(data))[anchor] {
		return fmt.Errorf("%s has no heading with the anchor #%s", filepath.ToSlash(file), anchor)
	}
	return nil
}

// anchorsOf returns the anchors of a page's headings, as GitHub makes them: the heading
// in lower case, without punctuation, spaces as hyphens, and -1, -2... after a repeat.
func anchorsOf(page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(fence.ReplaceAllString(page, ""), "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.TrimSpace(strings.TrimRight(line[level:], "# ")) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				slug.WriteRune(unicode.ToLower(r))
			case r == ' ':
				slug.WriteRune('-')
			}
		}
		anchor := slug.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor] = n + 1
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	}
	return anchors
}
