// Command openapidoc writes the API's OpenAPI document, exactly as GET /api/openapi.json
// serves it, indented, to a file or to standard output; make test lints that file.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/finledger/finledger/httpapi"
)

func main() {
	out := flag.String("o", "", "the file to write (default: standard output)")
	flag.Parse()
	var doc bytes.Buffer
	if err := json.Indent(&doc, httpapi.OpenAPIDocument(), "", "  "); err != nil {
		fmt.Fprintln(os.Stderr, "openapidoc:", err)
		os.Exit(1)
	}
	doc.WriteByte('\n')
	if *out == "" {
		_, _ = os.Stdout.Write(doc.Bytes())
		return
	}
	if err := os.WriteFile(*out, doc.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "openapidoc:", err)
		os.Exit(1)
	}
}
