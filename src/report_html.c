/* report_html.c: the HTML sink of report_compose: one self-contained page
 * (inline CSS, inline SVG timeline, no scripts, nothing fetched), written as
 * well-formed XHTML so XML tools can check it. */
#include <stdlib.h>
#include <string.h>

#include "report_model.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d2329;margin:0;background:#fff}"
	"main{max-width:1180px;margin:0 auto;padding:18px 24px 48px}"
	"h1{font-size:22px;margin:6px 0 10px;padding:10px 14px;border-left:6px solid #c62828;background:#fbeaea}"
	"h1.ok{border-left-color:#2e7d32;background:#e8f5e9}"
	"h2{font-size:17px;margin:26px 0 8px;padding-bottom:3px;border-bottom:1px solid #d8dde3}"
	"code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f5;padding:0 3px;"
	"border-radius:3px}"
	"table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}"
	"th,td{border:1px solid #d8dde3;padding:3px 8px;text-align:left;vertical-align:top}"
	"th{background:#f1f3f5}tr.hi td{background:#fdecea}"
	".tw{overflow-x:auto}"
	"figure.ev{margin:8px 0 12px}figure.ev figcaption{font-size:12.5px;color:#46505a}"
	"figure.ev pre{margin:3px 0 0;padding:6px 10px;background:#f6f8fa;border-left:3px solid #8a96a3;"
	"white-space:pre-wrap;word-break:break-all;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
	".tl{overflow-x:auto;border:1px solid #d8dde3;border-radius:4px;padding:4px 0}"
	"footer{margin-top:30px;font-size:12px;color:#6a737d}";

/* Styles of the timeline, inside the <svg> so it stands alone too. */
static const char svg_css[] =
	"<style>"
	".bg.s0{fill:#ffffff}.bg.s1{fill:#f3f5f7}.bg.cul{fill:#fde2e2}.culbar{fill:#c62828}"
	"text{font:11px system-ui,sans-serif;fill:#1d2329}.host{font-weight:600}.rl.cul{fill:#b71c1c;font-weight:700}"
	".axis{fill:#46505a}.tick{fill:#46505a;text-anchor:middle;font-size:10px}.lg{fill:#46505a}"
	".grid{stroke:#e3e7eb;stroke-width:1}.progress{stroke:#9aa5b1;stroke-width:2}"
	".mk.step{stroke:#6b7785;stroke-width:1.2}.mk.timeout{fill:#ef8a17}.mk.error{fill:#d62728}"
	".mk.exit{fill:#222}.mk.dump{fill:#1f77b4}.mk.sysmsg{stroke:#8e44ad;stroke-width:2.5}"
	".lastp{fill:none;stroke:#c62828;stroke-width:2}"
	".ff{stroke:#c62828;stroke-width:1.5;stroke-dasharray:5 3}.fft{fill:#c62828;font-weight:700}"
	"</style>";

/* One UTF-8 sequence at s (0: invalid). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
	if (n == 0 || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (n == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)))
		return 0; /* overlong, surrogate */
	if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)))
		return 0;
	if (n == 3 && c == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)
		return 0; /* U+FFFE, U+FFFF: not XML characters */
	return n;
}

void report_xml_esc(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		size_t n = utf8_len(p);
		if (c == '&')
			buf_puts(b, "&amp;");
		else if (c == '<')
			buf_puts(b, "&lt;");
		else if (c == '>')
			buf_puts(b, "&gt;");
		else if (c == '"')
			buf_puts(b, "&quot;");
		else if (c == '\'')
			buf_puts(b, "&#39;");
		else if (c < 0x20 && c != '\n' && c != '\t')
			buf_putc(b, ' ');
		else if (n == 0 || c == 0x7F)
			buf_puts(b, "\xEF\xBF\xBD");
		else
			buf_append(b, p, n);
		p += n ? n : 1;
	}
}

struct html {
	struct buf body;
	char *title;
	bool in_list, ok; /* ok: the job completed (the title is not an alarm) */
};

/* Inline text: code spans and strong text, the rest escaped. */
static void inl(struct buf *o, const char *s)
{
	bool code = false, bold = false;
	struct buf seg = {0};
	for (const char *p = s;; p++) {
		if (*p && *p != RI_CODE[0] && *p != RI_BOLD[0]) {
			buf_putc(&seg, *p);
			continue;
		}
		if (seg.len)
			report_xml_esc(o, seg.data);
		buf_clear(&seg);
		if (!*p)
			break;
		if (*p == RI_CODE[0])
			buf_puts(o, (code = !code) ? "<code>" : "</code>");
		else
			buf_puts(o, (bold = !bold) ? "<strong>" : "</strong>");
	}
	if (code)
		buf_puts(o, "</code>");
	if (bold)
		buf_puts(o, "</strong>");
	buf_free(&seg);
}

static void block(struct html *w)
{
	if (w->in_list)
		buf_puts(&w->body, "</ul>\n");
	w->in_list = false;
}

static void h_title(void *ctx, const char *s)
{
	struct html *w = ctx;
	struct buf t = {0};
	for (const char *p = s; *p; p++)
		if (*p != RI_CODE[0] && *p != RI_BOLD[0])
			buf_putc(&t, *p);
	free(w->title);
	w->title = t.data ? t.data : xstrdup("");
	buf_puts(&w->body, w->ok ? "<h1 class=\"ok\">" : "<h1>");
	inl(&w->body, s);
	buf_puts(&w->body, "</h1>\n");
}

static void h_section(void *ctx, const char *name, const char *id)
{
	struct html *w = ctx;
	block(w);
	buf_printf(&w->body, "<h2 id=\"%s\">", id);
	report_xml_esc(&w->body, name);
	buf_puts(&w->body, "</h2>\n");
}

static void h_para(void *ctx, const char *s)
{
	struct html *w = ctx;
	block(w);
	buf_puts(&w->body, "<p>");
	inl(&w->body, s);
	buf_puts(&w->body, "</p>\n");
}

static void h_item(void *ctx, const char *s)
{
	struct html *w = ctx;
	if (!w->in_list)
		buf_puts(&w->body, "<ul>\n");
	w->in_list = true;
	buf_puts(&w->body, "<li>");
	inl(&w->body, s);
	buf_puts(&w->body, "</li>\n");
}

static void h_table(void *ctx, const struct report_table *t)
{
	struct html *w = ctx;
	block(w);
	buf_puts(&w->body, "<div class=\"tw\"><table>\n<thead><tr>");
	for (size_t k = 0; k < t->ncols; k++) {
		buf_puts(&w->body, "<th>");
		inl(&w->body, t->head[k]);
		buf_puts(&w->body, "</th>");
	}
	buf_puts(&w->body, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		buf_puts(&w->body, t->hi[r] ? "<tr class=\"hi\">" : "<tr>");
		for (size_t k = 0; k < t->ncols; k++) {
			buf_puts(&w->body, "<td>");
			inl(&w->body, t->cells[r * t->ncols + k]);
			buf_puts(&w->body, "</td>");
		}
		buf_puts(&w->body, "</tr>\n");
	}
	buf_puts(&w->body, "</tbody></table></div>\n");
}

static void h_quote(void *ctx, const char *cite, const char *note, const char *text)
{
	struct html *w = ctx;
	block(w);
	buf_puts(&w->body, "<figure class=\"ev\"><figcaption><code>");
	report_xml_esc(&w->body, cite);
	buf_puts(&w->body, "</code>");
	if (note) {
		buf_puts(&w->body, ": ");
		inl(&w->body, note);
	}
	buf_puts(&w->body, "</figcaption><pre>");
	report_xml_esc(&w->body, text);
	buf_puts(&w->body, "</pre></figure>\n");
}

static void h_timeline(void *ctx, const struct report_model *m)
{
	struct html *w = ctx;
	block(w);
	buf_puts(&w->body, "<p>One row per rank, grouped by host (large jobs: per host, then per group of hosts "
			   "that behaved alike). Hover a marker for its line.</p>\n<div class=\"tl\">");
	struct buf svg = {0};
	report_svg(m, &svg);
	/* the styles go right after the opening tag */
	char *gt = svg.data ? strchr(svg.data, '>') : NULL;
	if (gt) {
		buf_append(&w->body, svg.data, (size_t)(gt - svg.data) + 1);
		buf_puts(&w->body, svg_css);
		buf_puts(&w->body, gt + 1);
	}
	buf_free(&svg);
	buf_puts(&w->body, "</div>\n");
}

/* a chart of a section (the bandwidth chart), inline */
static void h_figure(void *ctx, const char *svg)
{
	struct html *w = ctx;
	block(w);
	buf_puts(&w->body, "<div class=\"tw\">");
	buf_puts(&w->body, svg);
	buf_puts(&w->body, "</div>\n");
}

static void h_done(void *ctx)
{
	block(ctx);
}

void report_html(const struct report_model *m, struct buf *out)
{
	struct html w = {.ok = strcmp(m->outcome, "completed") == 0};
	struct report_sink s = {&w, h_title, h_section, h_para, h_item, h_table, h_quote, h_timeline, h_done, h_figure};
	report_compose(m, &s);
	buf_puts(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		      "<title>ncclforensic: ");
	report_xml_esc(out, w.title ? w.title : "report");
	buf_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", css);
	if (w.body.data)
		buf_append(out, w.body.data, w.body.len);
	buf_puts(out, "<footer>Written by ncclforensic report");
	if (m->tool_version) {
		buf_puts(out, " from a case of ncclforensic ");
		report_xml_esc(out, m->tool_version);
	}
	buf_puts(out, m->redacted ? "; host names, addresses, user paths and pids are aliases.</footer>\n"
				  : ".</footer>\n");
	buf_puts(out, "</main>\n</body>\n</html>\n");
	buf_free(&w.body);
	free(w.title);
}
