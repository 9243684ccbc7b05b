import CTesseract

/// What the engine measures in an image to say what kind of image it is.
package struct ImageProperties: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// Distinct colors among the sampled pixels, each channel quantized to 4 bits.
    package var colorCount: Int
    /// The share of sampled pixels in the most common (quantized) color.
    package var dominantColorShare: Double
    /// Whether the most common color is near white.
    package var dominantColorIsLight: Bool
    /// The share of sampled pixels with a sharp step in brightness to a neighbor.
    package var edgeDensity: Double
    /// The share of the image covered by the boxes of the words read in it.
    package var textCoverage: Double

    package var aspectRatio: Double { Double(width) / Double(max(height, 1)) }

    /// What the properties say the image is.
    package enum Kind: String, Sendable {
        /// A picture of a screen: flat colors, sharp edges.
        case screenshot
        /// A page: light background, mostly text.
        case document
        /// A photograph: many colors, no dominant one.
        case photo
    }

    /// The kind these properties point to. A photo has many colors and no color covering a
    /// fifth of it; a document is mostly one light color with text on a good part of it; the
    /// rest, flat colors with sharp edges, is a screenshot.
    package var kind: Kind {
        if colorCount >= 1200 && dominantColorShare < 0.2 && textCoverage < 0.15 { return .photo }
        if dominantColorIsLight && dominantColorShare >= 0.45 && colorCount < 400 && textCoverage >= 0.04
            && aspectRatio < 1.2
        {
            return .document
        }
        if colorCount >= 2500 && edgeDensity < 0.05 { return .photo }
        return .screenshot
    }
}

extension DecodedImage {
    /// Measures the image on a grid of at most `samples` × `samples` pixels; `wordBoxes` are
    /// the boxes of the words read in it (in pixels).
    func properties(wordBoxes: [(x: Int, y: Int, width: Int, height: Int)], samples: Int = 400) -> ImageProperties {
        guard let data = pixGetData(pix) else {
            return ImageProperties(
                width: width, height: height, colorCount: 0, dominantColorShare: 0, dominantColorIsLight: false,
                edgeDensity: 0, textCoverage: 0)
        }
        let wordsPerLine = Int(pixGetWpl(pix))
        let stepX = max(1, width / samples)
        let stepY = max(1, height / samples)
        var histogram = [Int](repeating: 0, count: 4096)
        var sampled = 0
        var edges = 0
        var y = 0
        while y < height {
            var x = 0
            while x < width {
                let (r, g, b) = rgb(x: x, y: y, data: data, wordsPerLine: wordsPerLine)
                histogram[(r >> 4) << 8 | (g >> 4) << 4 | (b >> 4)] += 1
                sampled += 1
                // Brightness steps to the next pixel right and down (not the next sample: an
                // edge is a step between neighbors).
                let luminance = Self.luminance(r, g, b)
                if x + 1 < width {
                    let (r2, g2, b2) = rgb(x: x + 1, y: y, data: data, wordsPerLine: wordsPerLine)
                    if abs(Self.luminance(r2, g2, b2) - luminance) > 48 { edges += 1 }
                }
                if y + 1 < height {
                    let (r2, g2, b2) = rgb(x: x, y: y + 1, data: data, wordsPerLine: wordsPerLine)
                    if abs(Self.luminance(r2, g2, b2) - luminance) > 48 { edges += 1 }
                }
                x += stepX
            }
            y += stepY
        }
        let dominant = histogram.indices.max { histogram[$0] < histogram[$1] } ?? 0
        let (dr, dg, db) = ((dominant >> 8) << 4 | 8, ((dominant >> 4) & 0xF) << 4 | 8, (dominant & 0xF) << 4 | 8)
        let wordArea = wordBoxes.reduce(0) { $0 + $1.width * $1.height }
        return ImageProperties(
            width: width, height: height, colorCount: histogram.count { $0 > 0 },
            dominantColorShare: Double(histogram[dominant]) / Double(max(sampled, 1)),
            dominantColorIsLight: Self.luminance(dr, dg, db) >= 200,
            edgeDensity: Double(edges) / Double(max(sampled * 2, 1)),
            textCoverage: min(1, Double(wordArea) / Double(max(width * height, 1))))
    }

    private static func luminance(_ r: Int, _ g: Int, _ b: Int) -> Int {
        (299 * r + 587 * g + 114 * b) / 1000
    }
}
