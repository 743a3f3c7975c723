//! Pixels from what a kitty graphics command sent: RGB, RGBA, PNG (the `png` crate),
//! every size checked before memory is taken.

use super::{ImageData, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, Refusal, refuse};

/// Whether a width and height are within the limits, before any pixel is allocated.
pub(super) fn check_dimensions(width: u32, height: u32) -> Result<(), Refusal> {
    if width == 0 || height == 0 {
        return Err(refuse("EINVAL", "the image has no width or height"));
    }
    if width > MAX_IMAGE_SIDE
        || height > MAX_IMAGE_SIDE
        || width as usize * height as usize * 4 > MAX_IMAGE_BYTES
    {
        return Err(refuse(
            "EFBIG",
            format!("an image of {width}x{height} pixels is too large"),
        ));
    }
    Ok(())
}

/// Pixels of a transmission: `format` 24 (RGB), 32 (RGBA), each `width` x `height`,
/// or 100 (PNG, its own size).
pub(crate) fn decode(
    format: u32,
    width: u32,
    height: u32,
    data: Vec<u8>,
) -> Result<ImageData, Refusal> {
    let rgba = match format {
        24 | 32 => {
            check_dimensions(width, height)?;
            let pixels = width as usize * height as usize;
            let bpp = if format == 24 { 3 } else { 4 };
            if data.len() < pixels * bpp {
                return Err(refuse("ENODATA", "insufficient image data"));
            }
            if bpp == 4 {
                let mut data = data;
                data.truncate(pixels * 4);
                data
            } else {
                let mut out = Vec::with_capacity(pixels * 4);
                for px in data[..pixels * 3].chunks_exact(3) {
                    out.extend_from_slice(&[px[0], px[1], px[2], 255]);
                }
                out
            }
        }
        100 => return decode_png(&data),
        _ => return Err(refuse("EINVAL", "unknown image format")),
    };
    ImageData::new(width, height, rgba)
        .ok_or_else(|| refuse("EINVAL", "the image has no width or height"))
}

/// Decodes a PNG to RGBA, its size checked from the header before its pixels are.
fn decode_png(data: &[u8]) -> Result<ImageData, Refusal> {
    let bad = |e: png::DecodingError| refuse("EBADPNG", format!("the PNG cannot be decoded: {e}"));
    let mut decoder = png::Decoder::new_with_limits(
        std::io::Cursor::new(data),
        png::Limits {
            bytes: MAX_IMAGE_BYTES * 2,
        },
    );
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let info = decoder.read_header_info().map_err(bad)?;
    check_dimensions(info.width, info.height)?;
    let mut reader = decoder.read_info().map_err(bad)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| refuse("EFBIG", "the PNG is too large"))?;
    if size > MAX_IMAGE_BYTES {
        return Err(refuse("EFBIG", "the PNG is too large"));
    }
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(bad)?;
    let (width, height) = (frame.width, frame.height);
    let pixels = width as usize * height as usize;
    let line = frame.line_size;
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(refuse("EBADPNG", "an indexed PNG not expanded")),
    };
    let mut rgba = Vec::with_capacity(pixels * 4);
    for row in buf.chunks(line).take(height as usize) {
        for px in row[..width as usize * channels].chunks_exact(channels) {
            let p = match channels {
                1 => [px[0], px[0], px[0], 255],
                2 => [px[0], px[0], px[0], px[1]],
                3 => [px[0], px[1], px[2], 255],
                _ => [px[0], px[1], px[2], px[3]],
            };
            rgba.extend_from_slice(&p);
        }
    }
    ImageData::new(width, height, rgba).ok_or_else(|| refuse("EBADPNG", "a truncated PNG"))
}
