package workspace

import (
	"net/http"
	"testing"
)

// overRate is a Limit that refuses a person the way the transport does
// past their rate: 429 with Retry-After.
func overRate(refused map[string]bool, seen *[]string) func(w http.ResponseWriter, userID, route string) bool {
	return func(w http.ResponseWriter, userID, route string) bool {
		*seen = append(*seen, userID+" "+route)
		if refused[userID] {
			w.Header().Set("Retry-After", "42")
			http.Error(w, "Too many requests: try again in 42 seconds.", http.StatusTooManyRequests)
			return false
		}
		return true
	}
}

// sideChannel is alice's workspace holding kept.txt, its routes (set by
// with), a download URL of kept.txt and an upload URL of new.txt.
func sideChannel(t *testing.T, with func(*Routes)) (*Store, *Routes, Presigned, Upload) {
	t.Helper()
	s, _ := newStore(t, roomy)
	write(t, s, alice, "kept.txt", []byte("kept\n"))
	routes := &Routes{Store: s, Log: nopLog{}, Authenticate: func(http.ResponseWriter, *http.Request) (string, bool) { return alice, true }}
	with(routes)
	down, err := s.PresignDownload(alice, "kept.txt")
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.RequestUpload(alice, "new.txt", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return s, routes, down, up
}

func TestEverySideChannelRouteCountsAgainstTheOwnersRateAndAnUploadRefusedForItIsNotSpent(t *testing.T) {
	refused := map[string]bool{alice: true}
	var seen []string
	s, routes, down, up := sideChannel(t, func(r *Routes) { r.Limit = overRate(refused, &seen) })
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, APIPath}, {http.MethodGet, APIPath + "/kept.txt"}, {http.MethodDelete, APIPath + "/kept.txt"},
		{http.MethodGet, DownloadPath + down.Token}, {http.MethodPut, UploadPath + up.Token},
	} {
		rec := serve(routes, r.method, r.path, []byte("new\n"))
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "42" {
			t.Errorf("%s %s over the rate: %d %q", r.method, r.path, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	want := []string{alice + " rest_list", alice + " rest_get", alice + " rest_delete", alice + " presigned_get", alice + " presigned_put"}
	if len(seen) != len(want) {
		t.Fatalf("counted %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("counted %v, want %v", seen, want)
		}
	}
	if _, err := s.Stat(alice, "kept.txt"); err != nil {
		t.Fatalf("a refused DELETE deleted: %v", err)
	}
	delete(refused, alice)
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("new\n")); rec.Code != http.StatusCreated {
		t.Fatalf("the upload URL after the refusal: %d %s", rec.Code, rec.Body)
	}
}

func TestWithTheWorkspaceOffEverySideChannelRouteIsRefusedAndNothingIsReadStoredOrSpent(t *testing.T) {
	off := true
	s, routes, down, up := sideChannel(t, func(r *Routes) { r.Off = func() bool { return off } })
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, APIPath}, {http.MethodGet, APIPath + "/kept.txt"}, {http.MethodPut, APIPath + "/other.txt"},
		{http.MethodDelete, APIPath + "/kept.txt"}, {http.MethodGet, DownloadPath + down.Token}, {http.MethodPut, UploadPath + up.Token},
	} {
		rec := serve(routes, r.method, r.path, []byte("new\n"))
		if rec.Code != http.StatusForbidden || rec.Body.String() != offText+"\n" {
			t.Errorf("%s %s with the workspace off: %d %q", r.method, r.path, rec.Code, rec.Body)
		}
	}
	if files, err := s.List(alice); err != nil || len(files) != 1 || files[0].Name != "kept.txt" {
		t.Fatalf("the workspace after the refusals: %+v %v", files, err)
	}
	off = false
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("new\n")); rec.Code != http.StatusCreated {
		t.Fatalf("the upload URL once the workspace is on again: %d %s", rec.Code, rec.Body)
	}
}
