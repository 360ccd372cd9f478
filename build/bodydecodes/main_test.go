package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestItCountsDecodesOfABodyParameterAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	src := `package transport

import (
	"bytes"
	"encoding/json"
)

func peek(body []byte) string {
	var m struct{ Method string }
	_ = json.Unmarshal(body, &m)
	_ = json.NewDecoder(bytes.NewReader(body)).Decode(&m)
	return m.Method
}

func stored(raw []byte) { var v any; _ = json.Unmarshal(raw, &v) }

func answer(msg json.RawMessage, other []byte) { var v any; _ = json.Unmarshal(other, &v); _ = json.Valid(msg) }
`
	if err := os.WriteFile(filepath.Join(dir, "t.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t_test.go"), []byte("package transport\nimport \"encoding/json\"\nfunc f(body []byte) { _ = json.Valid(body) }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sites, err := count(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sites {
		got = append(got, s.fn+" "+s.call)
	}
	want := []string{"peek json.Unmarshal", "peek json.NewDecoder", "answer json.Valid"}
	if len(got) != len(want) {
		t.Fatalf("found %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("found %q, want %q", got, want)
		}
	}
}
