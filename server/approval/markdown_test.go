package approval

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

func TestTheMessageIsRenderedAsMattermostShowsIt(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"paragraphs and line breaks", "one\ntwo\n\nthree", "<p>one<br>two</p><p>three</p>"},
		{"strong and emphasis", "**bold** and *it* and _also_", "<p><strong>bold</strong> and <em>it</em> and <em>also</em></p>"},
		{"strong inside emphasis", "***both***", "<p><em><strong>both</strong></em></p>"},
		{"snake_case is not emphasis", "a snake_case_name", "<p>a snake_case_name</p>"},
		{"escaped star is text", `\*not\*`, "<p>*not*</p>"},
		{"strikethrough", "~~gone~~", "<p><del>gone</del></p>"},
		{"code span", "use `a<b>` here", "<p>use <code>a&lt;b&gt;</code> here</p>"},
		{"fenced code", "```go\nx := \"<y>\"\n```", `<pre><code class="language-go">x := &#34;&lt;y&gt;&#34;` + "\n</code></pre>"},
		{"heading", "# Title\nbody", "<h1>Title</h1><p>body</p>"},
		{"heading with closing hashes", "## Sub ##", "<h2>Sub</h2>"},
		{"hashtag is not a heading", "#tag here", "<p>#tag here</p>"},
		{"list", "- a\n- b", "<ul><li>a</li><li>b</li></ul>"},
		{"ordered list start", "3. c\n4. d", `<ol start="3"><li>c</li><li>d</li></ol>`},
		{"block quote", "> quoted", "<blockquote><p>quoted</p></blockquote>"},
		{"link", "[site](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">site</a></p>`},
		{"autolink", "see https://example.com", `<p>see <a href="https://example.com" target="_blank" rel="noopener noreferrer">https://example.com</a></p>`},
		{"mentions are text", "@alice ~town-square", "<p>@alice ~town-square</p>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(RenderMarkdown(c.in)); got != c.want {
				t.Fatalf("RenderMarkdown(%q)\n got %s\nwant %s", c.in, got, c.want)
			}
		})
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

func TestHostileMarkdownRendersAsInertText(t *testing.T) {
	cases := []string{
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"[click](javascript:alert(1))",
		"[click](JaVaScRiPt:alert(1))",
		"[click](java\tscript:alert(1))",
		"[click](javascript&#58;alert(1))",
		"[click](&#106;avascript:alert(1))",
		"[click](data:text/html;base64,PHNjcmlwdD4=)",
		"[click](vbscript:msgbox)",
		`[click](https://x.test/" onmouseover="alert(1))`,
		"![pic](javascript:alert(1))",
		"![pic](https://tracker.test/p.gif)",
		"[ref]\n\n[ref]: javascript:alert(1)",
		"```\n</code></pre><script>alert(1)</script>\n```",
		"`</code><script>x</script>`",
		"**<b onclick=x>**",
		"# <script>h</script>",
		"> <iframe src=//evil>",
		"```\"><script>\nx\n```",
	}
	for _, in := range cases {
		out := string(RenderMarkdown(in))
		lower := strings.ToLower(out)
		for _, bad := range []string{"<script", "<img", "<iframe", "<b ", "<b>"} {
			if strings.Contains(lower, bad) {
				t.Errorf("RenderMarkdown(%q) = %s: contains %q", in, out, bad)
			}
		}
		for _, m := range hrefRE.FindAllStringSubmatch(out, -1) {
			if !SafeURL(html.UnescapeString(m[1])) {
				t.Errorf("RenderMarkdown(%q) = %s links to %q", in, out, m[1])
			}
		}
		if n := strings.Count(out, "<"); n != strings.Count(out, ">") {
			t.Errorf("RenderMarkdown(%q) = %s has unbalanced brackets", in, out)
		}
		if strings.Contains(lower, "tracker.test") && strings.Contains(lower, "src=") {
			t.Errorf("RenderMarkdown(%q) = %s loads an image", in, out)
		}
	}
}

func TestOnlyLinksWithSafeSchemesAreLinks(t *testing.T) {
	for dest, want := range map[string]bool{
		"https://example.com": true, "http://x": true, "mailto:a@b.c": true, "/plugins/x": true, "#top": true, "rel/path": true,
		"javascript:alert(1)": false, "JAVASCRIPT:x": false, " javascript:x": false, "data:text/html,x": false,
		"file:///etc/passwd": false, "": false, "java\nscript:x": false, "x:y": false,
	} {
		if got := SafeURL(dest); got != want {
			t.Errorf("SafeURL(%q) = %v, want %v", dest, got, want)
		}
	}
}
