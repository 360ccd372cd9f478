package workspace

import (
	"strings"
	"testing"
)

func TestWhatIsHandedOutCarriesIdsForTheAuditThatAreNeitherTheTokenNorTheName(t *testing.T) {
	s, _ := newStore(t, roomy)
	f := write(t, s, alice, "plan-zebra.txt", []byte("hello"))
	p, err := s.PresignDownload(alice, "plan-zebra.txt")
	if err != nil {
		t.Fatal(err)
	}
	if p.FileID != f.Blob || len(p.ID) != 16 || strings.Contains(p.Token, p.ID) || strings.Contains(p.ID, "zebra") {
		t.Fatalf("download ids %q %q for token %q", p.ID, p.FileID, p.Token)
	}
	up, err := s.RequestUpload(alice, "upload-zebra.bin", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if up.HandleID == "" || len(up.TokenID) != 16 || strings.Contains(up.Handle, up.TokenID) || strings.Contains(up.Token, up.TokenID) {
		t.Fatalf("upload ids %q %q", up.HandleID, up.TokenID)
	}
	again, err := s.PresignUpload(alice, "upload-zebra.bin", UploadTerms{})
	if err != nil || again.ID == up.TokenID {
		t.Fatalf("two tokens share the id %q (%v)", again.ID, err)
	}
}
