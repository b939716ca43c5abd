#!/usr/bin/python3
"""Writes the ImageDecoder fixtures for BMP, PNM, PNG, TIFF, JPEG, WebP and JPEG 2000: small encoded images made with
Pillow (and libjpeg-turbo's cjpeg, package libjpeg-turbo-progs, for the JPEG codings Pillow does
not write: restart intervals, 4:4:0, RGB) and, for each, the pixels Pillow decodes
(NAME.expected.ppm, and NAME.expected.pgm for Grayscale). Run with Debian's /usr/bin/python3
(Pillow 9.4) from this folder."""
import io
import struct
import subprocess
import zlib

import numpy as np
from PIL import Image

H, W = 7, 9
rng = np.random.RandomState(7)
y, x = np.mgrid[0:H, 0:W]
pixels = np.stack([(x * 29 + y * 3) % 256, (y * 37 + 11) % 256, (x * y * 13 + 5) % 256], -1)
pixels = ((pixels + rng.randint(0, 40, pixels.shape)) % 256).astype(np.uint8)
rgb = Image.fromarray(pixels)
rgba = Image.fromarray(np.dstack([pixels, (x * 31 % 256).astype(np.uint8)]), "RGBA")
gray = rgb.convert("L")


def adam7_png():
    """An interlaced RGB PNG split over two IDAT chunks (Pillow does not write interlaced ones)."""
    raw = b""
    for r0, c0, rs, cs in [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)]:
        for row in pixels[r0::rs, c0::cs]:
            if row.size:
                raw += b"\x01" + bytes(np.diff(row.astype(int), axis=0, prepend=0).astype(np.uint8).tobytes())

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    z = zlib.compress(raw)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 1)) +
            chunk(b"IDAT", z[:20]) + chunk(b"IDAT", z[20:]) + chunk(b"IEND", b""))


def saved(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def cjpeg(image, *options):
    return subprocess.run(["cjpeg", *options], input=saved(image, "PPM"), capture_output=True, check=True).stdout


fixtures = {
    "png_rgb.png": saved(rgb, "PNG"),
    "png_rgba.png": saved(rgba, "PNG"),
    "png_gray1.png": saved(gray.convert("1"), "PNG"),
    "png_palette4.png": saved(rgb.quantize(colors=16), "PNG", bits=4),
    "png_stored.png": saved(rgb, "PNG", compress_level=0),
    "png_adam7.png": adam7_png(),
    "tiff_raw.tif": saved(rgb, "TIFF"),
    "tiff_packbits.tif": saved(rgb, "TIFF", compression="packbits"),
    "tiff_lzw.tif": saved(rgba, "TIFF", compression="tiff_lzw"),
    "tiff_deflate.tif": saved(gray, "TIFF", compression="tiff_adobe_deflate"),
    "tiff_palette.tif": saved(rgb.quantize(colors=30), "TIFF"),
    "bmp_rgb24.bmp": saved(rgb, "BMP"),
    "bmp_palette8.bmp": saved(rgb.quantize(colors=60), "BMP"),
    "bmp_mono.bmp": saved(gray.convert("1"), "BMP"),
    "bmp_rgba32.bmp": saved(rgba, "BMP"),
    "pnm_p6.ppm": saved(rgb, "PPM"),
    "pnm_p5.pgm": saved(gray, "PPM"),
    "pnm_p4.pbm": saved(gray.convert("1"), "PPM"),
    "pnm_p3.ppm": b"P3\n# ascii\n9 7\n255\n" + " ".join(str(v) for v in pixels.reshape(-1)).encode(),
    "jpeg_420.jpg": saved(rgb, "JPEG", quality=90, subsampling=2),
    "jpeg_422.jpg": saved(rgb, "JPEG", quality=60, subsampling=1),
    "jpeg_444.jpg": saved(rgb, "JPEG", quality=100, subsampling=0),
    "jpeg_gray.jpg": saved(gray, "JPEG", quality=80),
    "jpeg_restart_440.jpg": cjpeg(rgb, "-restart", "1B", "-sample", "1x2"),
    "jpeg_rgb.jpg": cjpeg(rgb, "-rgb", "-optimize"),
    # Decoded only through libwebp and OpenJPEG (-DONNXC_IMAGE_LIBS; image_system_check.cpp).
    "webp_lossy.webp": saved(rgb, "WEBP", quality=80),
    "webp_lossless.webp": saved(rgb, "WEBP", lossless=True),
    "webp_alpha.webp": saved(rgba, "WEBP", quality=70),
    "jp2_lossless.jp2": saved(rgb, "JPEG2000", irreversible=False),
    "jp2_gray.jp2": saved(gray, "JPEG2000"),
    "j2k_irreversible.j2k": saved(rgb, "JPEG2000", irreversible=True, no_jp2=True,
                                  quality_mode="rates", quality_layers=[8]),
    "pnm_p2_maxval100.pgm": b"P2 9 7 100 " + " ".join(str(v * 100 // 255) for v in np.asarray(gray).reshape(-1)).encode(),
}
for name, data in fixtures.items():
    with open(name, "wb") as f:
        f.write(data)
    decoded = Image.open(io.BytesIO(data))
    decoded.convert("RGB").save(name + ".expected.ppm")
    decoded.convert("RGB").convert("L").save(name + ".expected.pgm")
print(len(fixtures), "fixtures")
