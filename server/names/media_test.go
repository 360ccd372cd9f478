package names

import "testing"

func TestATypeGivesTheExtensionPeopleExpectAndANameGivesItsType(t *testing.T) {
	for mediaType, want := range map[string]string{
		"text/plain": ".txt", "text/plain; charset=utf-8": ".txt", "image/jpeg": ".jpg", "application/pdf": ".pdf",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx", "application/x-nothing-knows": "", "not a type": "",
	} {
		if got := Extension(mediaType); got != want {
			t.Errorf("Extension(%q) = %q, want %q", mediaType, got, want)
		}
	}
	for name, want := range map[string]string{
		"a.txt": "text/plain", "B.PDF": "application/pdf", "c.xml": "application/xml", "d.jpg": "image/jpeg", "e": "", "f.nothingknows": "",
	} {
		if got := MediaType(name); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", name, got, want)
		}
	}
}
