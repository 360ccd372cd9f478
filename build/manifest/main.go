// Command manifest prints a field of plugin.json, so the build reads the
// plugin's id and version from that one place.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	field := flag.String("field", "version", "id or version")
	path := flag.String("manifest", "plugin.json", "path to plugin.json")
	flag.Parse()
	raw, err := os.ReadFile(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifest:", err)
		os.Exit(1)
	}
	var m struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		fmt.Fprintln(os.Stderr, "manifest: plugin.json is not valid JSON:", err)
		os.Exit(1)
	}
	switch *field {
	case "id":
		fmt.Println(m.ID)
	case "version":
		fmt.Println(m.Version)
	default:
		fmt.Fprintln(os.Stderr, "manifest: unknown field", *field)
		os.Exit(2)
	}
}
