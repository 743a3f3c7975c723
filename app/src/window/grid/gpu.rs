//! The GPU side of the grid texture: the shared state a frame finds (`GridSlot`,
//! `GridGpu`: the device, the pipelines of `pipelines.rs` compiled off the UI thread,
//! the font atlas), each pane's texture, and the paint callback that draws a frame's job.

use std::ops::Range;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};

use eframe::egui_wgpu::{self, wgpu};

use super::pipelines::{Atlas, Pipelines};

/// The largest texture side used; a pane bigger than the device allows is drawn
/// directly.
const MAX_SIDE_PX: u32 = 8192;

/// What every pane's grid shares: the device, the two pipelines and egui's font atlas.
/// Refreshed each frame from eframe's render state ([`GridSlot::refresh`]); none
/// outside eframe's wgpu renderer (the kittest harness), where panes draw directly.
#[derive(Clone)]
pub struct GridGpu {
    device: wgpu::Device,
    pipelines: Arc<Pipelines>,
    atlas: Arc<Atlas>,
    max_side_px: u32,
}

/// The grid's shared state as a frame finds it. The pipelines are compiled on a thread
/// of their own (`tern-grid-compile`), started by the window's first frame: a shader
/// compile costs a software renderer tens of milliseconds and a GPU driver some, and
/// the first frames, the ones that show a shell's prompt, do not wait for it. Until the
/// pipelines are ready, panes draw directly.
#[derive(Default)]
pub struct GridSlot {
    ready: Option<GridGpu>,
    pipelines: Option<Arc<Pipelines>>,
    compiling: Option<(wgpu::TextureFormat, Receiver<Pipelines>)>,
}

impl GridSlot {
    /// What panes draw their rows with this frame: `None` without eframe's wgpu
    /// renderer, before egui's font atlas exists or while the pipelines compile.
    pub fn get(&self) -> Option<&GridGpu> {
        self.ready.as_ref()
    }

    /// Makes (or keeps) the shared state for this frame; a frame is asked for when the
    /// pipelines are compiled.
    pub fn refresh(&mut self, ctx: &egui::Context, frame: &eframe::Frame) {
        let Some(rs) = frame.wgpu_render_state() else {
            *self = GridSlot::default();
            return;
        };
        if self
            .pipelines
            .as_ref()
            .is_some_and(|p| p.format != rs.target_format)
        {
            self.pipelines = None;
        }
        if self.pipelines.is_none() {
            self.pipelines = self
                .compiled(ctx, &rs.device, rs.target_format)
                .map(Arc::new);
        }
        let atlas = {
            let renderer = rs.renderer.read();
            renderer
                .texture(&egui::TextureId::default())
                .and_then(|t| Some((t.texture.clone()?, t.options?)))
        };
        let (Some(pipelines), Some((texture, options))) = (self.pipelines.clone(), atlas) else {
            self.ready = None;
            return;
        };
        match self.ready.as_mut() {
            Some(g) if Arc::ptr_eq(&g.pipelines, &pipelines) => {
                if g.atlas.texture != texture {
                    g.atlas = Arc::new(Atlas::new(&g.device, &g.pipelines, texture, options));
                }
            }
            _ => {
                let atlas = Arc::new(Atlas::new(&rs.device, &pipelines, texture, options));
                crate::window::trace::note_if_changed("grid_pipelines", "", || {
                    format!(
                        "\"compiled_on\":{},\"compile_us\":{}",
                        serde_json::Value::from(pipelines.compiled_on.as_str()),
                        pipelines.compile_us
                    )
                });
                self.ready = Some(GridGpu {
                    device: rs.device.clone(),
                    pipelines,
                    atlas,
                    max_side_px: rs.device.limits().max_texture_dimension_2d.min(MAX_SIDE_PX),
                });
            }
        }
    }

    /// The pipelines for `format` once compiled; the first call starts the compile.
    fn compiled(
        &mut self,
        ctx: &egui::Context,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
    ) -> Option<Pipelines> {
        if let Some((compiling, rx)) = &self.compiling
            && *compiling == format
        {
            return match rx.try_recv() {
                Ok(p) => {
                    self.compiling = None;
                    Some(p)
                }
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => {
                    // The thread ended without them (it panicked): compile here.
                    self.compiling = None;
                    Some(Pipelines::new(device, format))
                }
            };
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let (thread_device, ctx) = (device.clone(), ctx.clone());
        let started = std::thread::Builder::new()
            .name("tern-grid-compile".into())
            .spawn(move || {
                let _ = tx.send(Pipelines::new(&thread_device, format));
                ctx.request_repaint();
            });
        if started.is_err() {
            return Some(Pipelines::new(device, format));
        }
        self.compiling = Some((format, rx));
        None
    }
}

impl GridGpu {
    /// Whether a texture of `size_px` can be made.
    pub fn fits(&self, size_px: [u32; 2]) -> bool {
        size_px.iter().all(|&s| s > 0 && s <= self.max_side_px)
    }
}

/// A pane's texture (and the scale it was made for), shared by the pane's
/// `GridTexture` and its frames' callbacks.
pub(super) type SharedSurface = Arc<Mutex<Option<(Surface, f32)>>>;

/// A pane's texture on the GPU side.
pub(super) struct Surface {
    pub(super) size_px: [u32; 2],
    view: wgpu::TextureView,
    locals: wgpu::BindGroup,
    copy: wgpu::BindGroup,
    /// The number of the last job drawn into it.
    pub(super) drawn: u64,
}

impl Surface {
    fn new(gpu: &GridGpu, device: &wgpu::Device, size_px: [u32; 2], ppp: f32) -> Surface {
        let p = &gpu.pipelines;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("tern grid"),
            size: wgpu::Extent3d {
                width: size_px[0],
                height: size_px[1],
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: p.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        // The texture's size in points, as egui's `screen_size_in_points`.
        let mut bytes = Vec::with_capacity(16);
        for f in [size_px[0] as f32 / ppp, size_px[1] as f32 / ppp, 0.0, 0.0] {
            bytes.extend_from_slice(&f.to_ne_bytes());
        }
        let buffer = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("tern grid locals"),
                contents: &bytes,
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let locals = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tern grid locals"),
            layout: &p.locals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        let copy = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tern grid copy"),
            layout: &p.copy_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        Surface {
            size_px,
            view,
            locals,
            copy,
            drawn: 0,
        }
    }
}

/// What a frame's callback draws.
pub(super) struct Job {
    pub(super) number: u64,
    /// The job the texture must hold for this one to be drawn on it.
    pub(super) follows: u64,
    pub(super) size_px: [u32; 2],
    pub(super) pixels_per_point: f32,
    /// Rows' vertices (egui's layout, texture points) and indices.
    pub(super) vertices: Vec<u8>,
    pub(super) indices: Vec<u32>,
    /// Each band drawn: its pixel rows and its indices.
    pub(super) bands: Vec<(Range<u32>, Range<u32>)>,
    /// The copy's vertices: clip-space position, texel.
    pub(super) copy: Vec<f32>,
    /// To ask for another frame when the texture turned out stale.
    pub(super) ctx: egui::Context,
}

pub(super) struct Callback {
    pub(super) gpu: GridGpu,
    pub(super) surface: SharedSurface,
    pub(super) job: Job,
    pub(super) whole: bool,
}

impl egui_wgpu::CallbackTrait for Callback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        _queue: &wgpu::Queue,
        _screen: &egui_wgpu::ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        _resources: &mut egui_wgpu::CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let job = &self.job;
        let mut slot = self.surface.lock().unwrap_or_else(PoisonError::into_inner);
        let fits = slot
            .as_ref()
            .is_some_and(|(s, p)| s.size_px == job.size_px && *p == job.pixels_per_point);
        if !fits {
            *slot = Some((
                Surface::new(&self.gpu, device, job.size_px, job.pixels_per_point),
                job.pixels_per_point,
            ));
        }
        let Some((surface, _)) = slot.as_mut() else {
            return Vec::new();
        };
        if !self.whole && (surface.drawn != job.follows || !fits) {
            // A frame before this one was never drawn: what the texture holds is not
            // what this job builds on. Draw everything next frame.
            surface.drawn = 0;
            job.ctx.request_repaint();
            return Vec::new();
        }
        surface.drawn = job.number;
        if job.bands.is_empty() {
            return Vec::new();
        }
        let init = |label, contents: &[u8], usage| {
            wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                },
            )
        };
        let vertices = init("tern grid rows", &job.vertices, wgpu::BufferUsages::VERTEX);
        let index_bytes = bytemuck::cast_slice(&job.indices);
        let indices = init("tern grid rows", index_bytes, wgpu::BufferUsages::INDEX);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("tern grid rows"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &surface.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.gpu.pipelines.rows);
        pass.set_bind_group(0, &surface.locals, &[]);
        pass.set_bind_group(1, &self.gpu.atlas.bind_group, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        for (y, range) in &job.bands {
            if y.end <= y.start {
                continue;
            }
            pass.set_scissor_rect(0, y.start, job.size_px[0], y.end - y.start);
            pass.draw_indexed(range.clone(), 0, 0..1);
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        _resources: &egui_wgpu::CallbackResources,
    ) {
        let slot = self.surface.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((surface, _)) = slot.as_ref() else {
            return;
        };
        if self.job.copy.is_empty() || surface.drawn == 0 {
            return;
        }
        let buffer = wgpu::util::DeviceExt::create_buffer_init(
            &self.gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("tern grid copy"),
                contents: bytemuck::cast_slice(&self.job.copy),
                usage: wgpu::BufferUsages::VERTEX,
            },
        );
        pass.set_pipeline(&self.gpu.pipelines.copy);
        pass.set_bind_group(0, &surface.copy, &[]);
        pass.set_vertex_buffer(0, buffer.slice(..));
        pass.draw(0..(self.job.copy.len() / 4) as u32, 0..1);
    }
}
