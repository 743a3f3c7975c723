//! tern's patch (see `PATCHES.md`): a software renderer's frames reach an X11 window
//! through shared memory (MIT-SHM) instead of the driver's swapchain.
//!
//! Mesa's software Vulkan swapchain (lavapipe, before Mesa 23.1) sends every frame to the
//! X server as one `PutImage` over the socket — 1.2 MB for an 80x24 window, written in
//! chunks that the server reads between other clients' requests — and asks the window's
//! size before each frame. Here the frame is drawn into a texture of our own, read back
//! into a buffer (which a software device does with a memory copy), copied into a
//! shared-memory segment and shown with one small `ShmPutImage`, as Mesa's software GL
//! does. Only for a CPU adapter, an X11 window, the no-vsync present modes and a
//! server that takes a segment as a file descriptor (MIT-SHM 1.2); everything else —
//! and any failure — goes through the swapchain as before.

// Shared memory is made and mapped with system calls (memfd_create, mmap).
#![allow(unsafe_code)]

use std::os::fd::{FromRawFd as _, OwnedFd};

use raw_window_handle::{HasWindowHandle as _, RawWindowHandle};
use winit::window::Window;
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::Event;
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;

use egui_wgpu::wgpu;

/// Frames for one window, through MIT-SHM.
pub struct ShmPresenter {
    conn: RustConnection,
    window: u32,
    gc: u32,
    depth: u8,
    gpu: Gpu,
    target: Option<Target>,
}

/// What of eframe's render state the frames are drawn with (taken once, not each frame).
struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: std::sync::Arc<egui::mutex::RwLock<egui_wgpu::Renderer>>,
    format: wgpu::TextureFormat,
}

impl Gpu {
    /// Uploads the frame's texture changes and meshes; the command buffers egui's paint
    /// callbacks made.
    fn upload(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        primitives: &[egui::epaint::ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
        textures_delta: &mut egui::TexturesDelta,
    ) -> Vec<wgpu::CommandBuffer> {
        let mut renderer = self.renderer.write();
        #[expect(clippy::iter_over_hash_type)] // Order doesn't matter here
        for (id, deltas) in textures_delta.set.drain() {
            for delta in deltas {
                renderer.update_texture(&self.device, &self.queue, id, &delta);
            }
        }
        renderer.update_buffers(&self.device, &self.queue, encoder, primitives, screen)
    }

    /// Frees the textures egui let go of (after the submission that may still use them).
    fn free(&self, textures_delta: &mut egui::TexturesDelta) {
        let mut renderer = self.renderer.write();
        #[expect(clippy::iter_over_hash_type)] // Order doesn't matter here
        for id in textures_delta.free.drain() {
            renderer.free_texture(&id);
        }
    }
}

/// What a frame of one size is drawn into and shown from.
struct Target {
    width: u32,
    height: u32,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// The texture read back: rows `padded_row` bytes apart (wgpu wants 256).
    buffer: wgpu::Buffer,
    padded_row: u32,
    /// Two segments, used in turn: the server may still be reading one.
    segments: [Segment; 2],
    next: usize,
}

struct Segment {
    id: u32,
    ptr: *mut u8,
    len: usize,
    /// A `ShmPutImage` from it not yet completed by the server.
    busy: bool,
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: `ptr` is the mapping of `len` bytes made in `Segment::new`.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

impl ShmPresenter {
    /// A presenter for `window`, when its frames can go this way: `None` otherwise.
    pub fn new(
        window: &Window,
        render: &egui_wgpu::RenderState,
        present_mode: wgpu::PresentMode,
    ) -> Option<Self> {
        if render.adapter.get_info().device_type != wgpu::DeviceType::Cpu
            || matches!(
                present_mode,
                wgpu::PresentMode::AutoVsync | wgpu::PresentMode::Fifo | wgpu::PresentMode::FifoRelaxed
            )
            || !matches!(
                render.target_format,
                wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
            )
        {
            return None;
        }
        let window_id = match window.window_handle().ok()?.as_raw() {
            RawWindowHandle::Xlib(h) => u32::try_from(h.window).ok()?,
            RawWindowHandle::Xcb(h) => h.window.get(),
            _ => return None,
        };
        let (conn, _) = RustConnection::connect(None).ok()?;
        conn.extension_information(shm::X11_EXTENSION_NAME).ok()??;
        let version = conn.shm_query_version().ok()?.reply().ok()?;
        if (version.major_version, version.minor_version) < (1, 2) {
            return None;
        }
        let geometry = conn.get_geometry(window_id).ok()?.reply().ok()?;
        // The frame's bytes are BGRA in memory: a 24- or 32-bit depth stored as 32 bits
        // a pixel, least significant byte first.
        let setup = conn.setup();
        if (geometry.depth != 24 && geometry.depth != 32)
            || setup.image_byte_order != xproto::ImageOrder::LSB_FIRST
            || !setup
                .pixmap_formats
                .iter()
                .any(|f| f.depth == geometry.depth && f.bits_per_pixel == 32)
        {
            return None;
        }
        let gc = conn.generate_id().ok()?;
        conn.create_gc(
            gc,
            window_id,
            &xproto::CreateGCAux::new().graphics_exposures(0),
        )
        .ok()?
        .check()
        .ok()?;
        log::debug!("frames go to the X server through MIT-SHM");
        Some(Self {
            conn,
            window: window_id,
            gc,
            depth: geometry.depth,
            gpu: Gpu {
                device: render.device.clone(),
                queue: render.queue.clone(),
                renderer: render.renderer.clone(),
                format: render.target_format,
            },
            target: None,
        })
    }

    /// Draws `primitives` into a `size` frame and shows it in the window, taking the
    /// textures' changes from `textures_delta`; when no target can be made for the frame
    /// they are left there, for the swapchain's paint that follows.
    pub fn paint(
        &mut self,
        size: [u32; 2],
        pixels_per_point: f32,
        clear_color: [f32; 4],
        primitives: &[egui::epaint::ClippedPrimitive],
        textures_delta: &mut egui::TexturesDelta,
    ) -> Result<(), String> {
        let [width, height] = size;
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: size,
            pixels_per_point,
        };
        if width == 0 || height == 0 {
            let gpu = &self.gpu;
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let user_buffers = gpu.upload(&mut encoder, primitives, &screen, textures_delta);
            gpu.queue.submit(user_buffers.into_iter().chain([encoder.finish()]));
            gpu.free(textures_delta);
            return Ok(());
        }
        self.make_target(width, height)?;
        let Self {
            conn,
            window,
            gc,
            depth,
            gpu,
            target,
        } = self;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("egui_shm"),
            });
        let user_buffers = gpu.upload(&mut encoder, primitives, &screen, textures_delta);
        let target = target.as_mut().expect("made above");
        {
            let renderer = gpu.renderer.read();
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui_shm_render"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target.view,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: clear_color[0] as f64,
                            g: clear_color[1] as f64,
                            b: clear_color[2] as f64,
                            a: clear_color[3] as f64,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                    depth_slice: None,
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            renderer.render(&mut pass.forget_lifetime(), primitives, &screen);
        }
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &target.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &target.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(target.padded_row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        gpu.queue
            .submit(user_buffers.into_iter().chain([encoder.finish()]));
        gpu.free(textures_delta);

        let slice = target.buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the frame: {e}"))?;
        let i = target.next;
        target.next = 1 - i;
        wait_free(conn, &mut target.segments, i)?;
        {
            let mapped = slice
                .get_mapped_range()
                .map_err(|e| format!("reading the frame back: {e}"))?;
            let segment = &target.segments[i];
            // SAFETY: the segment maps `len` bytes, at least `width * height * 4`, and
            // the server reads it only between our `ShmPutImage` and its completion,
            // which `wait_free` has seen.
            let dst = unsafe { std::slice::from_raw_parts_mut(segment.ptr, segment.len) };
            let row = width as usize * 4;
            let padded = target.padded_row as usize;
            if row == padded {
                dst[..row * height as usize].copy_from_slice(&mapped[..row * height as usize]);
            } else {
                for (d, s) in dst
                    .chunks_exact_mut(row)
                    .zip(mapped.chunks(padded))
                    .take(height as usize)
                {
                    d.copy_from_slice(&s[..row]);
                }
            }
        }
        target.buffer.unmap();
        let segment = &mut target.segments[i];
        conn.shm_put_image(
                *window,
                *gc,
                width as u16,
                height as u16,
                0,
                0,
                width as u16,
                height as u16,
                0,
                0,
                *depth,
                xproto::ImageFormat::Z_PIXMAP.into(),
                true,
                segment.id,
                0,
            )
            .map_err(|e| format!("ShmPutImage: {e}"))?;
        segment.busy = true;
        conn.flush().map_err(|e| format!("ShmPutImage: {e}"))?;
        Ok(())
    }

    /// Makes the target for a `width` x `height` frame, anew when the size changed.
    fn make_target(&mut self, width: u32, height: u32) -> Result<(), String> {
        let most = self.gpu.device.limits().max_texture_dimension_2d;
        if width > most.min(u16::MAX as u32) || height > most.min(u16::MAX as u32) {
            return Err(format!("a {width}x{height} frame is larger than a texture may be"));
        }
        if self
            .target
            .as_ref()
            .is_none_or(|t| (t.width, t.height) != (width, height))
        {
            // The old segments are released after the server is done with them.
            if let Some(mut old) = self.target.take() {
                for i in 0..2 {
                    wait_free(&self.conn, &mut old.segments, i)?;
                    let _ = self.conn.shm_detach(old.segments[i].id);
                }
            }
            let device = &self.gpu.device;
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("egui_shm_frame"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.gpu.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let padded_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("egui_shm_readback"),
                size: padded_row as u64 * height as u64,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let len = width as usize * height as usize * 4;
            let segments = [
                Segment::new(&self.conn, len)?,
                Segment::new(&self.conn, len)?,
            ];
            self.target = Some(Target {
                width,
                height,
                texture,
                view,
                buffer,
                padded_row,
                segments,
                next: 0,
            });
        }
        Ok(())
    }
}

impl Segment {
    /// `len` bytes of shared memory, attached to the server as a file descriptor.
    fn new(conn: &RustConnection, len: usize) -> Result<Self, String> {
        // SAFETY: plain system calls; the descriptor is owned from here on and the
        // mapping is released in `Drop`.
        let fd = unsafe { libc::memfd_create(c"egui-shm".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(format!("memfd_create: {}", std::io::Error::last_os_error()));
        }
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        use std::os::fd::AsRawFd as _;
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(format!("ftruncate: {}", std::io::Error::last_os_error()));
        }
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(format!("mmap: {}", std::io::Error::last_os_error()));
        }
        let mut segment = Self {
            id: 0,
            ptr: ptr.cast(),
            len,
            busy: false,
        };
        segment.id = conn.generate_id().map_err(|e| format!("shm segment: {e}"))?;
        conn.shm_attach_fd(segment.id, fd, true)
            .map_err(|e| format!("ShmAttachFd: {e}"))?
            .check()
            .map_err(|e| format!("ShmAttachFd: {e}"))?;
        Ok(segment)
    }
}

/// Waits until the server has completed every `ShmPutImage` from segment `i`.
fn wait_free(conn: &RustConnection, segments: &mut [Segment; 2], i: usize) -> Result<(), String> {
    while let Some(event) = conn.poll_for_event().map_err(|e| e.to_string())? {
        completed(segments, event)?;
    }
    while segments[i].busy {
        completed(segments, conn.wait_for_event().map_err(|e| e.to_string())?)?;
    }
    Ok(())
}

/// Marks the segment a `ShmCompletion` names free; an error the server sent is one.
fn completed(segments: &mut [Segment; 2], event: Event) -> Result<(), String> {
    match event {
        Event::ShmCompletion(done) => {
            for s in segments.iter_mut() {
                if s.id == done.shmseg {
                    s.busy = false;
                }
            }
            Ok(())
        }
        Event::Error(e) => Err(format!("the X server refused a frame: {e:?}")),
        _ => Ok(()),
    }
}
