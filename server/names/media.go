package names

import (
	"mime"
	"path"
	"strings"
)

// commonExtensions is the extension of the types people give most often.
// mime.ExtensionsByType answers its list sorted, so text/plain would be
// ".asc" and image/jpeg ".jfif"; these are the ones people expect.
var commonExtensions = map[string]string{
	"text/plain":               ".txt",
	"text/markdown":            ".md",
	"text/csv":                 ".csv",
	"text/html":                ".html",
	"text/xml":                 ".xml",
	"application/xml":          ".xml",
	"application/json":         ".json",
	"application/pdf":          ".pdf",
	"application/zip":          ".zip",
	"application/gzip":         ".gz",
	"application/octet-stream": ".bin",
	"application/msword":       ".doc",
	"image/png":                ".png",
	"image/jpeg":               ".jpg",
	"image/gif":                ".gif",
	"image/webp":               ".webp",
	"image/svg+xml":            ".svg",
	"audio/mpeg":               ".mp3",
	"audio/wav":                ".wav",
	"video/mp4":                ".mp4",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   ".docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         ".xlsx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}

// commonTypes is commonExtensions the other way round, one type for each
// extension (".xml" is application/xml, as the system's table has it).
var commonTypes = func() map[string]string {
	out := map[string]string{}
	for t, ext := range commonExtensions {
		if prev, ok := out[ext]; !ok || t < prev {
			out[ext] = t
		}
	}
	out[".xml"] = "application/xml"
	return out
}()

// Extension is the usual extension of a media type, "" when nothing knows
// it: the common types first, then the system's table.
func Extension(mediaType string) string {
	t, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return ""
	}
	if ext, ok := commonExtensions[t]; ok {
		return ext
	}
	if exts, err := mime.ExtensionsByType(t); err == nil && len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// MediaType is the media type a file's name says: the common types
// first, then the system's table; "" when nothing knows the extension.
func MediaType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return ""
	}
	if t, ok := commonTypes[ext]; ok {
		return t
	}
	t, _, err := mime.ParseMediaType(mime.TypeByExtension(ext))
	if err != nil {
		return ""
	}
	return t
}
