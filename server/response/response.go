// Package response holds the headers and the JSON body every plugin route
// answers with, so that a page and a piece of data are made inert the same
// way on every route.
package response

import (
	"encoding/json"
	"net/http"
)

// PagePolicy is the Content-Security-Policy of the plugin's own HTML pages
// (the admin's status, the person's confirmation): no script, inline styles
// for their look, images from Mattermost, framed only by Mattermost itself,
// and forms that post back only to it.
const PagePolicy = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'"

// DataPolicy is the Content-Security-Policy of everything that is data
// (JSON, CSV): nothing loads, and a browser that opened it anyway would
// sandbox it.
const DataPolicy = "default-src 'none'; sandbox"

// SecurePage sets the headers of one of the plugin's HTML pages: its
// policy, no sniffing, no cache (it shows a person's own state), and no
// referrer (its address may carry a confirmation's id).
func SecurePage(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", PagePolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

// SecureData sets the headers of a response that is data: never rendered,
// never sniffed, never cached (it may hold a token, a person's clients or
// the audit trail).
func SecureData(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", DataPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

// JSON answers code with v as JSON, made inert by SecureData.
func JSON(w http.ResponseWriter, code int, v any) {
	SecureData(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	// The status is sent: a failed write means the client went away, and
	// there is no one left to tell.
	_ = json.NewEncoder(w).Encode(v)
}
