package response

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestEveryAnswerIsInertAndUncached(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(http.ResponseWriter)
		want  map[string]string
	}{
		{"page", SecurePage, map[string]string{"Content-Security-Policy": PagePolicy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}},
		{"data", SecureData, map[string]string{"Content-Security-Policy": DataPolicy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}},
		{"json", func(w http.ResponseWriter) { JSON(w, http.StatusTeapot, map[string]int{"n": 1}) },
			map[string]string{"Content-Security-Policy": DataPolicy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Content-Type": "application/json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tc.write(w)
			for k, v := range tc.want {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s is %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestJSONSendsTheCodeAndTheValue(t *testing.T) {
	w := httptest.NewRecorder()
	JSON(w, http.StatusConflict, map[string]string{"error": "taken"})
	var got map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusConflict || got["error"] != "taken" {
		t.Errorf("got %d %v", w.Code, got)
	}
}
