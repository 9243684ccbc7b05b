import CCMarkGFM
import Foundation
import Synchronization

/// Markdown to HTML with GitHub's CommonMark library (cmark-gfm): tables, strikethrough and
/// autolinks, in safe mode, so what a model writes is shown and never run.
///
/// - Raw HTML, inline or as a block, is dropped (`<!-- raw HTML omitted -->`), and so are links
///   and images to `javascript:`, `vbscript:`, `file:` and non-image `data:` URLs (cmark-gfm's
///   safe mode, the default without `CMARK_OPT_UNSAFE`); the tag filter extension is on as well.
/// - A fenced code block keeps its language as `<pre><code class="language-swift">`, which the
///   web app turns into a label.
///
/// ```swift
/// MarkdownRenderer.html(for: "~~old~~ **new**")  // "<p><del>old</del> <strong>new</strong></p>\n"
/// ```
public enum MarkdownRenderer {
    /// The extensions attached to every parse.
    static let extensionNames = ["table", "strikethrough", "autolink", "tagfilter"]

    /// Registers the extensions once per process: cmark-gfm's registry is global and not
    /// safe to fill from two threads at once; reading it afterwards is.
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// Held for each whole parse and render. cmark-gfm keeps the table of characters that start
    /// an inline (`SPECIAL_CHARS` in inlines.c) in one global array: a parse adds the attached
    /// extensions' characters (`~` for strikethrough) while it reads inlines and takes them out
    /// when done, so two parses at once can read `~~old~~` as plain text (seen in the test suite;
    /// github/cmark-gfm#221 and standardese#199 describe the table).
    private static let parsing = Mutex(())

    /// The HTML for `markdown`.
    public static func html(for markdown: String) -> String {
        precondition(registered)
        return parsing.withLock { _ in render(markdown) }
    }

    private static func render(_ markdown: String) -> String {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE
        guard let parser = cmark_parser_new(options) else { return escaped(markdown) }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let syntax = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, syntax) }
        }
        var text = markdown
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        guard let document = cmark_parser_finish(parser) else { return escaped(markdown) }
        defer { cmark_node_free(document) }
        guard let rendered = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else {
            return escaped(markdown)
        }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// `text` as HTML text: what is shown when the library cannot parse (out of memory).
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return "<p>" + result + "</p>\n"
    }
}
