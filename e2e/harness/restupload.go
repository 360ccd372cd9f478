package harness

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
)

// RESTUpload uploads data to a channel as Mattermost's own clients do
// (POST /api/v4/files), the baseline the file benchmarks compare with.
func RESTUpload(site, token, channelID, name string, data []byte) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("channel_id", channelID)
	part, _ := w.CreateFormFile("files", name)
	_, _ = part.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, strings.TrimRight(site, "/")+"/api/v4/files", &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("REST upload: %d %s", resp.StatusCode, b)
	}
	return nil
}
