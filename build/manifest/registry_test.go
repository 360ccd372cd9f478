package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// server.json describes this server to the official MCP registry (and the
// registries and IDE galleries that read it) as a remote whose URL has
// the person's Mattermost as a variable.
//
// testdata/server.schema.2025-12-11.json is the registry's published
// schema, as the registry's own module (github.com/modelcontextprotocol/
// registry v1.8.9, internal/validators/schemas/2025-12-11.json) embeds it
// to validate what is published; sha256 2e1e2dc7…2f68. It is validated with
// the same JSON Schema library the registry uses (v6 of it), and the checks
// the registry makes beyond the schema for a remote are made here too.
const registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// serverJSON is what the tests read of server.json.
type serverJSON struct {
	Schema     string `json:"$schema"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository struct {
		URL string `json:"url"`
	} `json:"repository"`
	Remotes []struct {
		Type      string                     `json:"type"`
		URL       string                     `json:"url"`
		Variables map[string]json.RawMessage `json:"variables"`
	} `json:"remotes"`
}

func readServerJSON(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// validateAgainstRegistrySchema validates raw against the registry's schema,
// formats asserted.
func validateAgainstRegistrySchema(t *testing.T, raw []byte) error {
	t.Helper()
	schemaRaw, err := os.ReadFile(filepath.Join("testdata", "server.schema.2025-12-11.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaRaw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(registrySchema, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(registrySchema)
	if err != nil {
		t.Fatal(err)
	}
	instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return schema.Validate(instance)
}

var templateVariable = regexp.MustCompile(`\{([^{}]+)\}`)

// remoteProblems are the registry's checks of a remote beyond its schema:
// a URL that is https and not localhost once its variables are filled, and
// no variable in it left undeclared.
func remoteProblems(s serverJSON) []string {
	var problems []string
	if len(s.Remotes) == 0 {
		problems = append(problems, "no remote")
	}
	for _, r := range s.Remotes {
		if r.Type != "streamable-http" {
			problems = append(problems, "remote type "+r.Type+", want streamable-http")
		}
		for _, m := range templateVariable.FindAllStringSubmatch(r.URL, -1) {
			if _, ok := r.Variables[m[1]]; !ok {
				problems = append(problems, "the URL's {"+m[1]+"} is not declared in variables")
			}
		}
		u, err := url.Parse(templateVariable.ReplaceAllString(r.URL, "placeholder"))
		if err != nil || u.Scheme != "https" || u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" {
			problems = append(problems, "the URL "+r.URL+" is not an https URL away from localhost")
		}
	}
	return problems
}

func TestServerJSONIsValidForTheOfficialMCPRegistry(t *testing.T) {
	raw := readServerJSON(t)
	if err := validateAgainstRegistrySchema(t, raw); err != nil {
		t.Fatalf("server.json breaks the registry's schema: %v", err)
	}
	var s serverJSON
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != registrySchema {
		t.Errorf("$schema %q, want %q", s.Schema, registrySchema)
	}
	if p := remoteProblems(s); len(p) > 0 {
		t.Errorf("the registry would refuse server.json's remote: %v", p)
	}
	// The registry verifies an io.github.<owner>/ name against the
	// repository of that owner.
	owner := strings.TrimPrefix(strings.SplitN(s.Name, "/", 2)[0], "io.github.")
	if !strings.HasPrefix(s.Repository.URL, "https://github.com/"+owner+"/") {
		t.Errorf("name %q is not in the namespace of repository %q", s.Name, s.Repository.URL)
	}
}

func TestServerJSONNamesThisPluginsVersionAndItsMCPRoute(t *testing.T) {
	var s serverJSON
	if err := json.Unmarshal(readServerJSON(t), &s); err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join("..", "..", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	if s.Version != m.Version {
		t.Errorf("server.json says version %q, plugin.json %q: bump both", s.Version, m.Version)
	}
	for _, r := range s.Remotes {
		if !strings.HasSuffix(r.URL, "/plugins/"+m.ID+"/mcp") {
			t.Errorf("remote URL %q is not the plugin's MCP route /plugins/%s/mcp", r.URL, m.ID)
		}
	}
}

func TestTheRegistryChecksRefuseARemoteThatWouldNotWork(t *testing.T) {
	var s serverJSON
	if err := json.Unmarshal(readServerJSON(t), &s); err != nil {
		t.Fatal(err)
	}
	broken := s
	broken.Remotes = append(broken.Remotes[:0:0], s.Remotes...)
	broken.Remotes[0].URL = "http://{site}/plugins/x/mcp"
	if p := remoteProblems(broken); len(p) != 2 {
		t.Errorf("an http URL with an undeclared variable gave %v, want both refused", p)
	}
	// And the schema itself refuses what the registry refuses.
	raw := bytes.Replace(readServerJSON(t), []byte(`"name": "io.github.`), []byte(`"name": "no slash `), 1)
	if err := validateAgainstRegistrySchema(t, raw); err == nil {
		t.Error("a name without its namespace passed the registry's schema")
	}
}
