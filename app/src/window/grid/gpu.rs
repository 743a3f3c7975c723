//! The GPU side of the grid texture: the pipelines (egui's arithmetic for rows, a
//! texel copy for the window), egui's font atlas bound for them, each pane's texture,
//! and the paint callback that draws a frame's job.

use std::ops::Range;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};

use eframe::egui_wgpu::{self, wgpu};

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

struct Pipelines {
    format: wgpu::TextureFormat,
    /// The thread that compiled them and how long it took (the trace's `grid_pipelines`).
    compiled_on: String,
    compile_us: u128,
    rows: wgpu::RenderPipeline,
    locals_layout: wgpu::BindGroupLayout,
    atlas_layout: wgpu::BindGroupLayout,
    copy: wgpu::RenderPipeline,
    copy_layout: wgpu::BindGroupLayout,
}

/// egui's font atlas, bound for the rows' pipeline.
struct Atlas {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
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

impl Atlas {
    fn new(
        device: &wgpu::Device,
        p: &Pipelines,
        texture: wgpu::Texture,
        options: egui::TextureOptions,
    ) -> Atlas {
        let filter = |f: egui::TextureFilter| match f {
            egui::TextureFilter::Nearest => wgpu::FilterMode::Nearest,
            egui::TextureFilter::Linear => wgpu::FilterMode::Linear,
        };
        let address = match options.wrap_mode {
            egui::TextureWrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
            egui::TextureWrapMode::Repeat => wgpu::AddressMode::Repeat,
            egui::TextureWrapMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        };
        // The sampler egui makes for the atlas (`egui_wgpu::renderer::create_sampler`).
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("tern grid atlas sampler"),
            mag_filter: filter(options.magnification),
            min_filter: filter(options.minification),
            address_mode_u: address,
            address_mode_v: address,
            ..Default::default()
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tern grid atlas"),
            layout: &p.atlas_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        Atlas {
            texture,
            bind_group,
        }
    }
}

/// egui's shader (`egui_wgpu`'s `egui.wgsl`) for rows, less what tern turns off
/// (dithering, predictable filtering): the same arithmetic, so the same pixels.
const ROWS_WGSL: &str = r"
struct Out { @location(0) uv: vec2<f32>, @location(1) color: vec4<f32>, @builtin(position) pos: vec4<f32> };
@group(0) @binding(0) var<uniform> screen_size: vec4<f32>;
@group(1) @binding(0) var atlas: texture_2d<f32>;
@group(1) @binding(1) var atlas_sampler: sampler;
fn unpack_color(c: u32) -> vec4<f32> {
    return vec4<f32>(f32(c & 255u), f32((c >> 8u) & 255u), f32((c >> 16u) & 255u), f32((c >> 24u) & 255u)) / 255.0;
}
@vertex fn vs(@location(0) pos: vec2<f32>, @location(1) uv: vec2<f32>, @location(2) color: u32) -> Out {
    var out: Out;
    out.uv = uv;
    out.color = unpack_color(color);
    out.pos = vec4<f32>(2.0 * pos.x / screen_size.x - 1.0, 1.0 - 2.0 * pos.y / screen_size.y, 0.0, 1.0);
    return out;
}
fn linear_from_gamma_rgb(srgb: vec3<f32>) -> vec3<f32> {
    let cutoff = srgb < vec3<f32>(0.04045);
    let lower = srgb / vec3<f32>(12.92);
    let higher = pow((srgb + vec3<f32>(0.055)) / vec3<f32>(1.055), vec3<f32>(2.4));
    return select(higher, lower, cutoff);
}
@fragment fn fs_gamma(in: Out) -> @location(0) vec4<f32> {
    return in.color * textureSample(atlas, atlas_sampler, in.uv);
}
@fragment fn fs_linear(in: Out) -> @location(0) vec4<f32> {
    let c = in.color * textureSample(atlas, atlas_sampler, in.uv);
    return vec4<f32>(linear_from_gamma_rgb(c.rgb), c.a);
}
";

/// The copy to the window: one texel load per pixel, at the texel under it.
const COPY_WGSL: &str = r"
struct Out { @location(0) texel: vec2<f32>, @builtin(position) pos: vec4<f32> };
@group(0) @binding(0) var grid: texture_2d<f32>;
@vertex fn vs(@location(0) at: vec2<f32>, @location(1) texel: vec2<f32>) -> Out {
    var out: Out;
    out.texel = texel;
    out.pos = vec4<f32>(at, 0.0, 1.0);
    return out;
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {
    return textureLoad(grid, vec2<i32>(floor(in.texel)), 0);
}
";

impl Pipelines {
    fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Pipelines {
        let started = std::time::Instant::now();
        let locals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid locals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                multisampled: false,
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            count: None,
        };
        let atlas_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid atlas"),
            entries: &[
                texture_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let copy_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid copy"),
            entries: &[texture_entry(0)],
        });
        let module = |label, code: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(code.into()),
            })
        };
        let (rows_module, copy_module) = (
            module("tern grid rows", ROWS_WGSL),
            module("tern grid copy", COPY_WGSL),
        );
        let pipeline = |label,
                        layouts: &[Option<&wgpu::BindGroupLayout>],
                        module: &wgpu::ShaderModule,
                        buffer: wgpu::VertexBufferLayout<'_>,
                        fragment: &str,
                        blend: Option<wgpu::BlendState>| {
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: layouts,
                immediate_size: 0,
            });
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs"),
                    buffers: &[Some(buffer)],
                    compilation_options: Default::default(),
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fragment),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                    compilation_options: Default::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // egui's blend: premultiplied alpha.
        let egui_blend = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::OneMinusDstAlpha,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let rows = pipeline(
            "tern grid rows",
            &[Some(&locals_layout), Some(&atlas_layout)],
            &rows_module,
            wgpu::VertexBufferLayout {
                array_stride: VERTEX_BYTES as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2, 2 => Uint32],
            },
            if format.is_srgb() {
                "fs_linear"
            } else {
                "fs_gamma"
            },
            Some(egui_blend),
        );
        let copy = pipeline(
            "tern grid copy",
            &[Some(&copy_layout)],
            &copy_module,
            wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2],
            },
            "fs",
            None,
        );
        Pipelines {
            format,
            compiled_on: std::thread::current().name().unwrap_or("?").to_owned(),
            compile_us: started.elapsed().as_micros(),
            rows,
            locals_layout,
            atlas_layout,
            copy,
            copy_layout,
        }
    }
}

/// egui's vertex on the GPU: position and uv (`f32` pairs), colour (4 bytes).
pub(super) const VERTEX_BYTES: usize = 20;

pub(super) fn vertex_bytes(out: &mut Vec<u8>, v: &egui::epaint::Vertex, shift: egui::Vec2) {
    let pos = v.pos - shift;
    for f in [pos.x, pos.y, v.uv.x, v.uv.y] {
        out.extend_from_slice(&f.to_ne_bytes());
    }
    out.extend_from_slice(&v.color.to_array());
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
