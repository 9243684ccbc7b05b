import Foundation
import Markdown
import Synchronization
import TestSupport
import Testing

/// What the assistant's answers become in the browser: GitHub's Markdown with tables and
/// strikethrough, code blocks that keep their language, and nothing a page would run.
@Suite struct MarkdownRendererTests {
    @Test(.onTestThreads) func tablesAndStrikethroughAreRendered() {
        let html = MarkdownRenderer.html(for: "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~ **new**")
        #expect(html.contains("<table>") && html.contains("<th>a</th>") && html.contains("<td>2</td>"))
        #expect(html.contains("<del>old</del> <strong>new</strong>"))
    }

    /// cmark-gfm's table of inline characters is global: parses on several threads at once must
    /// still all see `~` (the renderer holds a lock for each parse).
    @Test(.onTestThreads) func parsesOnManyThreadsAtOnceAllSeeStrikethrough() {
        let struck = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 where MarkdownRenderer.html(for: "~~old~~ **new**").contains("<del>old</del>") {
                struck.withLock { $0 += 1 }
            }
        }
        #expect(struck.withLock { $0 } == 8 * 200)
    }

    @Test(.onTestThreads) func aCodeBlockKeepsItsLanguageAndEscapesItsText() {
        let html = MarkdownRenderer.html(for: "```swift\nlet a = b < c && d\n```")
        #expect(html == "<pre><code class=\"language-swift\">let a = b &lt; c &amp;&amp; d\n</code></pre>\n")
    }

    @Test(
        .onTestThreads,
        arguments: [
            "<script>alert(1)</script>",
            "hello <img src=x onerror=alert(1)> there",
            "<iframe src=\"https://example.com\"></iframe>",
            "<div onclick=\"alert(1)\">x</div>",
        ])
    func rawHTMLIsRemoved(markdown: String) {
        let html = MarkdownRenderer.html(for: markdown)
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("<iframe"))
        #expect(!html.contains("<div") && !html.contains("onerror") && !html.contains("onclick"))
    }

    @Test(.onTestThreads) func dangerousLinksLoseTheirTarget() {
        let html = MarkdownRenderer.html(for: "[click](javascript:alert(1)) and ![x](javascript:alert(2))")
        #expect(!html.contains("javascript:"))
        #expect(html.contains(">click</a>"))
        #expect(MarkdownRenderer.html(for: "[ok](https://example.com)").contains("href=\"https://example.com\""))
    }

    @Test(.onTestThreads) func invalidUTF8AndEmptyInputAreHarmless() {
        #expect(MarkdownRenderer.html(for: "") == "")
        #expect(MarkdownRenderer.html(for: "a\u{0}b").contains("a\u{FFFD}b"))
        #expect(MarkdownRenderer.escaped("<b>&\"'") == "<p>&lt;b&gt;&amp;&quot;&#39;</p>\n")
    }
}
