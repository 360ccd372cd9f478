// The view's styles, Mattermost's own colours (Denim light, Onyx dark).
export const css = `
:root{--bg:#fff;--fg:#3f4350;--muted:rgba(63,67,80,.64);--line:rgba(63,67,80,.12);--link:#1c58d9;--code:rgba(63,67,80,.06);--chip:rgba(28,88,217,.08);color-scheme:light}
:root[data-theme=dark]{--bg:#191b1f;--fg:#e3e4e8;--muted:rgba(227,228,232,.64);--line:rgba(227,228,232,.12);--link:#5d89ea;--code:rgba(227,228,232,.08);--chip:rgba(93,137,234,.16);color-scheme:dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#191b1f;--fg:#e3e4e8;--muted:rgba(227,228,232,.64);--line:rgba(227,228,232,.12);--link:#5d89ea;--code:rgba(227,228,232,.08);--chip:rgba(93,137,234,.16);color-scheme:dark}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 "Open Sans",-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:880px;margin:0 auto;padding:8px 12px}
.channel{font-weight:600;font-size:15px;padding:6px 0 8px;border-bottom:1px solid var(--line)}
.posts{list-style:none;margin:0;padding:0}
.post{padding:10px 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
.post.reply{padding-left:16px;border-left:2px solid var(--line);margin-left:4px}
.head{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:baseline}
.author{font-weight:600}
.time,.in,.size,.replies,.more,.cut,.empty{color:var(--muted);font-size:12px}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
a.time{color:var(--muted)}
.body p{margin:4px 0}.body.system{color:var(--muted);font-style:italic}
pre{background:var(--code);padding:8px;border-radius:4px;overflow-x:auto;white-space:pre-wrap}
code{background:var(--code);padding:0 3px;border-radius:3px;font:12px/1.4 Menlo,Consolas,monospace}
pre code{background:none;padding:0}
blockquote{margin:4px 0;padding-left:10px;border-left:3px solid var(--line);color:var(--muted)}
ul{margin:4px 0;padding-left:20px}
.files{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:6px}
.files li{border:1px solid var(--line);border-radius:4px;padding:4px 8px;display:flex;flex-direction:column;max-width:100%}
.files .thumb{display:block;max-width:240px;max-height:160px;width:auto;height:auto;object-fit:contain;border-radius:3px;margin-bottom:4px}
.files .name{font-weight:600;font-size:13px}
.reactions{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px}.reaction{display:inline-flex;align-items:center;gap:4px;background:var(--chip);border:1px solid transparent;border-radius:4px;padding:0 6px;height:24px;font-size:12px;font-weight:600;color:var(--link);cursor:default;max-width:100%}
.reaction .emoji{font-size:16px;line-height:1}.reaction .emoji.custom{font-size:12px;font-weight:400;color:var(--fg);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.reaction.more-emoji{color:var(--muted);font-weight:400}
.pinned{color:var(--muted);font-size:12px;border:1px solid var(--line);border-radius:4px;padding:0 4px}.edited{color:var(--muted);font-size:12px;cursor:default}
.priority{font-size:10px;font-weight:700;text-transform:uppercase;border-radius:4px;padding:0 4px;color:#fff;background:#1c58d9}.priority.urgent{background:#d24b4e}
.hidden-note,.attribution,.acks{color:var(--muted);font-size:12px;margin:4px 0}
.cards{display:flex;flex-direction:column;gap:8px;margin:6px 0;max-width:720px}
.card-pretext p{margin:4px 0}
.card-box{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:4px;padding:8px 12px;display:flex;flex-direction:column;gap:4px;min-width:0}
.card-author{font-size:12px;font-weight:600}.card-title{font-weight:600;font-size:14px}.card-text p{margin:4px 0}
.card-fields{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:6px 16px;margin-top:4px}.card-field{grid-column:1/-1;min-width:0}.card-field.short{grid-column:auto}
.card-field-title{font-weight:600;font-size:13px}.card-field-value p{margin:2px 0}
.card-footer{color:var(--muted);font-size:12px}.card-image{font-size:12px}
.card-actions{display:flex;flex-wrap:wrap;gap:6px}.card-action{border:1px solid var(--line);border-radius:4px;padding:2px 10px;font-size:12px;font-weight:600;color:var(--muted);cursor:default}
.quotes{display:flex;flex-direction:column;gap:6px;margin:6px 0}
blockquote.quote{margin:0;border:1px solid var(--line);border-radius:4px;padding:8px 12px;color:var(--fg);max-width:720px}
.quote-head{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:baseline}.quote-head .time a{color:var(--muted)}
.quote-body p{margin:4px 0}.quote-files,.quote-channel{color:var(--muted);font-size:12px}
.preview{border:1px solid var(--line);border-radius:4px;padding:8px 12px;margin:6px 0;max-width:720px}.preview-site{color:var(--muted);font-size:12px}.preview-title{font-weight:600}.preview-text{font-size:13px}
.file-head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;padding:6px 0 8px;border-bottom:1px solid var(--line)}
.file-name{font-weight:600;font-size:15px;overflow-wrap:anywhere}
.about{color:var(--muted);font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0}
.image{margin:8px 0}.image img{display:block;max-width:100%;height:auto;border-radius:4px;border:1px solid var(--line)}
.window{font-size:13px;margin:8px 0 4px}
.lines{font:12px/1.5 Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:6px 0}
.line{display:flex}.line .n{flex:none;min-width:3.5em;padding:0 8px;text-align:right;color:var(--muted);user-select:none}.line .t{white-space:pre-wrap;overflow-wrap:anywhere;padding-right:8px}
.entries{width:100%;border-collapse:collapse;font-size:13px;margin-top:4px}.entries th{text-align:left;color:var(--muted);font-weight:600;font-size:12px}
.entries td,.entries th{padding:4px 6px;border-bottom:1px solid var(--line);vertical-align:top}.entries .entry{overflow-wrap:anywhere;font-family:Menlo,Consolas,monospace;font-size:12px}.entries .size{white-space:nowrap}
`;

// The file view's own styles: a PDF's pages, the notes on what is left out.
export const fileCss = `
.note{color:var(--muted);font-size:12px;margin:8px 0;overflow-wrap:anywhere}
.pages{display:flex;flex-direction:column;gap:12px;margin:8px 0}
.page{margin:0}.page-canvas{display:block;width:100%;max-width:640px;height:auto;margin:0 auto;background:#fff;border:1px solid var(--line);border-radius:2px}
.page figcaption{text-align:center;margin-top:2px}
`;

// The pending write view's own styles.
export const pendingCss = `
.pending{display:flex;flex-direction:column;gap:8px;padding:8px 0;overflow-wrap:anywhere}
.state{font-weight:600;font-size:15px}
.state-posted{color:#3db887}.state-declined,.state-failed,.state-withdrawn,.state-expired{color:#d24b4e}
.label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.02em}
.notes{margin:0}
.pending .post{border:1px solid var(--line);border-radius:4px;padding:8px 12px}
.pending figure.ai{margin:0;display:flex;flex-direction:column;gap:4px}
.ai-mark{color:#5b4bb8;font-size:12px;font-weight:600}
:root[data-theme=dark] .ai-mark{color:#b3a8f5}
a.open{align-self:flex-start;background:#1c58d9;color:#fff;font-weight:600;padding:8px 16px;border-radius:4px}
a.open:hover{text-decoration:none;opacity:.9}
`;

// The upload view's own styles: the pending view's frame for the AI's
// words, a drop zone, the chosen file and its progress.
export const uploadCss = `
[hidden]{display:none!important}
.upload{display:flex;flex-direction:column;gap:8px;padding:8px 0;overflow-wrap:anywhere}
.upload figure.ai{margin:0;display:flex;flex-direction:column;gap:4px}
.upload .post{border:1px solid var(--line);border-radius:4px;padding:8px 12px}
.purpose{white-space:pre-wrap}
.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0}.facts dt{color:var(--muted)}.facts dd{margin:0}
.drop{display:flex;flex-direction:column;gap:6px;align-items:center;text-align:center;padding:20px 12px;border:2px dashed var(--line);border-radius:8px;cursor:pointer}
.drop.over{border-color:var(--link);background:var(--chip)}.drop.busy{opacity:.6;pointer-events:none}
.picker{max-width:100%}
.chosen,.given{display:flex;flex-direction:column;gap:2px;border:1px solid var(--line);border-radius:4px;padding:8px 12px}
.chosen .name,.given .name{font-weight:600}
progress{width:100%;height:8px;margin-top:4px}
.sha256 code{overflow-wrap:anywhere}
.state-received{color:#3db887}.state-refused{color:#d24b4e}
`;

// Each view's styles, as the build writes them beside its script
// (vite.views.config.ts) for the server to put in the page as one <style>
// it allows by hash.
export const viewCss: Record<string, string> = {thread: css, file: css + fileCss, pending: css + pendingCss, upload: css + pendingCss + uploadCss};
