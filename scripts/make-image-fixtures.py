#!/usr/bin/python3
"""Make the images for Tests/LocalEngineTests/Fixtures/images: text rendered with Debian's DejaVu
fonts, so that the tests know what the OCR must read.

    screenshot.png  an app window (title bar, a dialog) with a known sentence
    document.png    a white page of text, portrait
    photo.jpg       a photo-like picture: smooth colour fields with noise, no text (JPEG)

The images are committed; run this only to change them.

Usage:  apt-get install python3-pil fonts-dejavu-core && scripts/make-image-fixtures.py  (Debian's python3)
"""

import math
import os
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "Tests", "LocalEngineTests", "Fixtures", "images")
fonts = "/usr/share/fonts/truetype/dejavu"


def font(name, size):
    return ImageFont.truetype(os.path.join(fonts, name), size)


def screenshot():
    image = Image.new("RGB", (960, 540), (236, 239, 244))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 960, 44], fill=(46, 52, 64))
    draw.text((20, 10), "Calendar", font=font("DejaVuSans-Bold.ttf", 20), fill=(236, 239, 244))
    draw.rectangle([180, 130, 780, 410], fill=(255, 255, 255), outline=(120, 130, 150), width=2)
    draw.text((210, 160), "Meeting moved", font=font("DejaVuSans-Bold.ttf", 30), fill=(30, 30, 30))
    body = font("DejaVuSans.ttf", 24)
    draw.text((210, 230), "The design review is now on Thursday", font=body, fill=(30, 30, 30))
    draw.text((210, 266), "at 3 PM in room Aurora.", font=body, fill=(30, 30, 30))
    draw.rectangle([620, 340, 750, 390], fill=(94, 129, 172))
    draw.text((662, 352), "OK", font=font("DejaVuSans-Bold.ttf", 22), fill=(255, 255, 255))
    image.save(os.path.join(out, "screenshot.png"))


def document():
    image = Image.new("RGB", (850, 1100), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((80, 80), "Invoice 4471", font=font("DejaVuSerif-Bold.ttf", 40), fill=(0, 0, 0))
    body = font("DejaVuSerif.ttf", 22)
    lines = [
        "Billed to: Northwind Traders, 12 Harbour Street.",
        "Date of issue: 3 March 2026. Payment due in thirty days.",
        "",
        "Consulting services for the month of February,",
        "including two workshops and the written report.",
        "",
        "Subtotal: 2,400.00 EUR",
        "Tax: 480.00 EUR",
        "Total due: 2,880.00 EUR",
        "",
        "Please pay by bank transfer and quote the invoice",
        "number with your payment. Thank you for your business.",
    ]
    for index, line in enumerate(lines):
        draw.text((80, 180 + index * 44), line, font=body, fill=(20, 20, 20))
    image.save(os.path.join(out, "document.png"))


def photo():
    # A landscape at sunset: a sky shading from orange to blue, a sun, two ranges of hills and a
    # meadow, with fine grain and a slight blur as a camera gives; no flat colour, no text.
    rng = random.Random(7)
    width, height = 800, 600
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            t = y / height
            r, g, b = 250 - 190 * t, 150 - 70 * t + 20 * math.sin(x / 90), 70 + 150 * t
            if (x - 560) ** 2 + (y - 210) ** 2 < 45**2:
                r, g, b = 255, 215, 120
            far = 330 + 40 * math.sin(x / 70) + 15 * math.sin(x / 23)
            near = 410 + 50 * math.sin(x / 120 + 1.3) + 10 * math.sin(x / 17)
            if y > far:
                r, g, b = 90 + 30 * math.sin(x / 40), 80 + (y - far) / 3, 120 - (y - far) / 4
            if y > near:
                depth = (y - near) / (height - near + 1)
                r = 60 + 50 * depth + 25 * math.sin(x / 9 + y / 13)
                g = 110 + 70 * depth + 30 * math.sin(x / 11 - y / 7)
                b = 40 + 20 * depth
            # Sensor noise, each channel its own.
            pixels[x, y] = tuple(int(max(0, min(255, c + rng.gauss(0, 16)))) for c in (r, g, b))
    # Wild flowers in the meadow, each its own colour.
    draw = ImageDraw.Draw(image)
    for _ in range(900):
        x, y = rng.randrange(width), rng.randrange(440, height)
        colour = (rng.randrange(120, 256), rng.randrange(40, 230), rng.randrange(40, 256))
        draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(0.6))
    image.save(os.path.join(out, "photo.jpg"), quality=90)


if __name__ == "__main__":
    os.makedirs(out, exist_ok=True)
    screenshot()
    document()
    photo()
