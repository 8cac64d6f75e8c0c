//! The gRPC calls of [`super::Remote`]: capabilities, the CAS (FindMissingBlobs,
//! BatchUpdateBlobs, BatchReadBlobs, ByteStream for blobs past one batch), the action cache
//! and Execution. Each public function blocks on the shared runtime.

use std::time::Duration;

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    Action, ActionResult, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Command, Digest,
    ExecuteRequest, ExecuteResponse, FindMissingBlobsRequest, GetActionResultRequest,
    GetCapabilitiesRequest, action_cache_client::ActionCacheClient, batch_update_blobs_request,
    capabilities_client::CapabilitiesClient, command::EnvironmentVariable,
    content_addressable_storage_client::ContentAddressableStorageClient,
    execution_client::ExecutionClient,
};
use bazel_remote_apis::google::bytestream::{
    ReadRequest, WriteRequest, byte_stream_client::ByteStreamClient,
};
use bazel_remote_apis::google::longrunning::operation;
use prost::Message;
use std::path::Path;

use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use super::tree::{self, Blobs, Source, TreeBuilder};
use super::types::{ActionOutcome, ActionSpec, CacheMode, RemoteError};

/// Blobs up to this size travel in batches; larger ones through ByteStream. Below the 4 MiB
/// every gRPC server accepts in one message.
const BATCH_BYTES: i64 = 2 << 20;
const CHUNK: usize = 1 << 20;
/// How often a wait for an action looks for a stop request.
const STOP_POLL: Duration = Duration::from_millis(100);
/// How long an action may wait in the server's queue beyond its own timeout.
const QUEUE_MARGIN: Duration = Duration::from_secs(60);
/// The wait for an action without a timeout of its own.
const NO_TIMEOUT_WAIT: Duration = Duration::from_secs(3600);

pub(super) struct Client {
    runtime: tokio::runtime::Runtime,
    channel: Channel,
    auth: Auth,
    instance: String,
}

fn rpc(what: &'static str) -> impl Fn(tonic::Status) -> RemoteError {
    move |s| RemoteError::Rpc {
        what,
        code: format!("{:?}", s.code()),
        message: s.message().to_string(),
    }
}

impl Client {
    pub(super) fn connect(
        url: &str,
        instance: &str,
        token: Option<&str>,
        ca: Option<&Path>,
    ) -> Result<Client, RemoteError> {
        let auth = Auth(
            token
                .map(|t| {
                    format!("Bearer {t}")
                        .parse()
                        .map_err(|_| RemoteError::BadSetting {
                            what: "the remote token is not one line of text".into(),
                        })
                })
                .transpose()?,
        );
        let endpoint = endpoint(url, ca)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|source| RemoteError::Io {
                path: "tokio runtime".into(),
                source,
            })?;
        let channel = runtime
            .block_on(endpoint.connect())
            .map_err(|e| RemoteError::Connect {
                url: url.to_string(),
                reason: innermost(&e),
            })?;
        Ok(Client {
            runtime,
            channel,
            instance: instance.to_string(),
            auth,
        })
    }

    pub(super) fn capabilities(&self) -> Result<Vec<String>, RemoteError> {
        let mut client =
            CapabilitiesClient::with_interceptor(self.channel.clone(), self.auth.clone());
        let caps = self
            .runtime
            .block_on(client.get_capabilities(GetCapabilitiesRequest {
                instance_name: self.instance.clone(),
            }))
            .map_err(rpc("capabilities"))?
            .into_inner();
        let version = |v: Option<bazel_remote_apis::build::bazel::semver::SemVer>| {
            v.map_or("?".into(), |v| format!("{}.{}", v.major, v.minor))
        };
        let mut lines = vec![format!(
            "API versions {} to {}",
            version(caps.low_api_version),
            version(caps.high_api_version)
        )];
        if let Some(c) = caps.cache_capabilities {
            lines.push(format!(
                "action cache: {}, batch limit {} bytes",
                if c.action_cache_update_capabilities
                    .is_some_and(|u| u.update_enabled)
                {
                    "clients may write"
                } else {
                    "only workers write"
                },
                c.max_batch_total_size_bytes
            ));
        }
        match caps.execution_capabilities {
            Some(e) if e.exec_enabled => lines.push("execution: enabled".into()),
            _ => lines.push("execution: disabled (cache only)".into()),
        }
        Ok(lines)
    }

    /// Uploads those of `blobs` the CAS lacks.
    pub(super) fn upload_missing(&self, blobs: &Blobs) -> Result<(), RemoteError> {
        let mut cas = ContentAddressableStorageClient::with_interceptor(
            self.channel.clone(),
            self.auth.clone(),
        );
        let digests: Vec<Digest> = blobs.values().map(|(d, _)| d.clone()).collect();
        let mut missing = Vec::new();
        for chunk in digests.chunks(1000) {
            let reply = self
                .runtime
                .block_on(cas.find_missing_blobs(FindMissingBlobsRequest {
                    instance_name: self.instance.clone(),
                    blob_digests: chunk.to_vec(),
                    digest_function: 0,
                }))
                .map_err(rpc("FindMissingBlobs"))?
                .into_inner();
            missing.extend(reply.missing_blob_digests);
        }
        let mut batch = Vec::new();
        let mut batch_bytes = 0;
        for d in missing {
            let Some((_, source)) = blobs.get(&d.hash) else {
                continue;
            };
            if d.size_bytes > BATCH_BYTES {
                self.write_stream(&d, source)?;
                continue;
            }
            if batch_bytes + d.size_bytes > BATCH_BYTES {
                self.write_batch(std::mem::take(&mut batch))?;
                batch_bytes = 0;
            }
            batch_bytes += d.size_bytes;
            batch.push(batch_update_blobs_request::Request {
                digest: Some(d),
                data: source.read()?,
                compressor: 0,
            });
        }
        self.write_batch(batch)
    }

    fn write_batch(
        &self,
        requests: Vec<batch_update_blobs_request::Request>,
    ) -> Result<(), RemoteError> {
        if requests.is_empty() {
            return Ok(());
        }
        let mut cas = ContentAddressableStorageClient::with_interceptor(
            self.channel.clone(),
            self.auth.clone(),
        );
        let reply = self
            .runtime
            .block_on(cas.batch_update_blobs(BatchUpdateBlobsRequest {
                instance_name: self.instance.clone(),
                requests,
                digest_function: 0,
            }))
            .map_err(rpc("BatchUpdateBlobs"))?
            .into_inner();
        match reply
            .responses
            .iter()
            .find_map(|r| r.status.as_ref().filter(|s| s.code != 0))
        {
            Some(status) => Err(RemoteError::Rpc {
                what: "BatchUpdateBlobs",
                code: status.code.to_string(),
                message: status.message.clone(),
            }),
            None => Ok(()),
        }
    }

    fn write_stream(&self, d: &Digest, source: &Source) -> Result<(), RemoteError> {
        let data = source.read()?;
        let resource = format!(
            "{}/uploads/{}/blobs/{}/{}",
            self.instance,
            upload_id(),
            d.hash,
            d.size_bytes
        );
        let mut requests = Vec::new();
        let mut offset = 0;
        for chunk in data.chunks(CHUNK) {
            let end = offset + chunk.len();
            requests.push(WriteRequest {
                resource_name: if offset == 0 {
                    resource.clone()
                } else {
                    String::new()
                },
                write_offset: i64::try_from(offset).unwrap_or(i64::MAX),
                finish_write: end == data.len(),
                data: chunk.to_vec(),
            });
            offset = end;
        }
        let mut client =
            ByteStreamClient::with_interceptor(self.channel.clone(), self.auth.clone());
        self.runtime
            .block_on(client.write(tokio_stream(requests)))
            .map_err(rpc("ByteStream.Write"))?;
        Ok(())
    }

    /// The bytes of `d`, at most `cap` of them.
    fn read(&self, d: &Digest, cap: u64) -> Result<Vec<u8>, RemoteError> {
        if d.size_bytes == 0 {
            return Ok(Vec::new());
        }
        if u64::try_from(d.size_bytes).unwrap_or(u64::MAX) > cap {
            return Err(RemoteError::Protocol {
                what: "result",
                reason: format!("an output of {} bytes is over the cap", d.size_bytes),
            });
        }
        if d.size_bytes <= BATCH_BYTES {
            let mut cas = ContentAddressableStorageClient::with_interceptor(
                self.channel.clone(),
                self.auth.clone(),
            );
            let reply = self
                .runtime
                .block_on(cas.batch_read_blobs(BatchReadBlobsRequest {
                    instance_name: self.instance.clone(),
                    digests: vec![d.clone()],
                    acceptable_compressors: Vec::new(),
                    digest_function: 0,
                }))
                .map_err(rpc("BatchReadBlobs"))?
                .into_inner();
            if let Some(r) = reply.responses.into_iter().next()
                && r.status.as_ref().is_none_or(|s| s.code == 0)
            {
                return Ok(r.data);
            }
        }
        let mut client =
            ByteStreamClient::with_interceptor(self.channel.clone(), self.auth.clone());
        let resource = format!("{}/blobs/{}/{}", self.instance, d.hash, d.size_bytes);
        self.runtime.block_on(async {
            let mut stream = client
                .read(ReadRequest {
                    resource_name: resource,
                    read_offset: 0,
                    read_limit: 0,
                })
                .await
                .map_err(rpc("ByteStream.Read"))?
                .into_inner();
            let mut data = Vec::new();
            while let Some(part) = stream.message().await.map_err(rpc("ByteStream.Read"))? {
                data.extend_from_slice(&part.data);
            }
            Ok(data)
        })
    }

    pub(super) fn run(
        &self,
        spec: &ActionSpec,
        mode: CacheMode,
    ) -> Result<ActionOutcome, RemoteError> {
        let (action, blobs) = self.action(spec)?;
        let (digest, bytes) = tree::message_blob(&action);
        if let Some(result) = self.cached(&digest)? {
            return self.outcome(result, spec, true);
        }
        self.upload_missing(&blobs)?;
        // A read-only client's executions must not land in the cache: the same action
        // marked do_not_cache has a digest of its own, which no one looks up.
        let (digest, bytes) = match mode {
            CacheMode::ReadWrite => (digest, bytes),
            CacheMode::ReadOnly => tree::message_blob(&Action {
                do_not_cache: true,
                ..action
            }),
        };
        let mut only_action = Blobs::new();
        only_action.insert(digest.hash.clone(), (digest.clone(), Source::Bytes(bytes)));
        self.upload_missing(&only_action)?;
        let result = self.execute(&digest, spec.wait.or(spec.timeout))?;
        self.outcome(result, spec, false)
    }

    fn action(&self, spec: &ActionSpec) -> Result<(Action, Blobs), RemoteError> {
        let mut root = TreeBuilder::default();
        for (path, disk) in &spec.inputs {
            root.file(path, disk)?;
        }
        for (path, tree) in &spec.mounts {
            root.subtree(path, tree.0.clone());
        }
        let mut environment: Vec<EnvironmentVariable> = spec
            .environment
            .iter()
            .map(|(name, value)| EnvironmentVariable {
                name: name.clone(),
                value: value.clone(),
            })
            .collect();
        environment.sort_by(|a, b| a.name.cmp(&b.name));
        let mut outputs = spec.output_files.clone();
        outputs.sort();
        let command = Command {
            arguments: spec.arguments.clone(),
            environment_variables: environment,
            output_paths: outputs,
            ..Command::default()
        };
        let (command_digest, command_bytes) = tree::message_blob(&command);
        let (root_digest, mut blobs) = root.finish();
        blobs.insert(
            command_digest.hash.clone(),
            (command_digest.clone(), Source::Bytes(command_bytes)),
        );
        let action = Action {
            command_digest: Some(command_digest),
            input_root_digest: Some(root_digest),
            timeout: spec
                .timeout
                .map(|t| bazel_remote_apis::google::protobuf::Duration {
                    seconds: i64::try_from(t.as_secs()).unwrap_or(i64::MAX),
                    nanos: i32::try_from(t.subsec_nanos()).unwrap_or(0),
                }),
            ..Action::default()
        };
        Ok((action, blobs))
    }

    fn cached(&self, digest: &Digest) -> Result<Option<ActionResult>, RemoteError> {
        let mut ac = ActionCacheClient::with_interceptor(self.channel.clone(), self.auth.clone());
        match self
            .runtime
            .block_on(ac.get_action_result(GetActionResultRequest {
                instance_name: self.instance.clone(),
                action_digest: Some(digest.clone()),
                inline_stdout: true,
                inline_stderr: true,
                ..GetActionResultRequest::default()
            })) {
            Ok(reply) => Ok(Some(reply.into_inner())),
            Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
            Err(s) => Err(rpc("GetActionResult")(s)),
        }
    }

    fn execute(
        &self,
        digest: &Digest,
        timeout: Option<Duration>,
    ) -> Result<ActionResult, RemoteError> {
        let mut exec = ExecutionClient::with_interceptor(self.channel.clone(), self.auth.clone());
        let mut request = tonic::Request::new(ExecuteRequest {
            instance_name: self.instance.clone(),
            skip_cache_lookup: true,
            action_digest: Some(digest.clone()),
            ..ExecuteRequest::default()
        });
        // A server that never finishes the action (no worker takes it) must not hold the
        // run: the action's own timeout and a margin for the queue, then a local run.
        request.set_timeout(timeout.unwrap_or(NO_TIMEOUT_WAIT) + QUEUE_MARGIN);
        let work = async {
            let mut stream = exec
                .execute(request)
                .await
                .map_err(rpc("Execute"))?
                .into_inner();
            while let Some(op) = stream.message().await.map_err(rpc("Execute"))? {
                if op.done {
                    return Ok(op.result);
                }
            }
            Err(RemoteError::Protocol {
                what: "Execute",
                reason: "the operation stream ended before the action did".into(),
            })
        };
        // A stop request (Ctrl-C) or the time budget ends the wait as it ends a local run.
        let stopped = async {
            while crate::stop::stop_reason().is_none() {
                tokio::time::sleep(STOP_POLL).await;
            }
        };
        let done = self.runtime.block_on(async {
            tokio::select! {
                done = work => done,
                () = stopped => Err(RemoteError::Stopped),
            }
        })?;
        let response = match done {
            Some(operation::Result::Response(any)) => ExecuteResponse::decode(&*any.value)
                .map_err(|e| RemoteError::Protocol {
                    what: "Execute",
                    reason: e.to_string(),
                })?,
            Some(operation::Result::Error(status)) => return Err(status_error(&status)),
            None => {
                return Err(RemoteError::Protocol {
                    what: "Execute",
                    reason: "a finished operation without a result".into(),
                });
            }
        };
        if let Some(status) = response.status.filter(|s| s.code != 0) {
            return Err(status_error(&status));
        }
        response.result.ok_or_else(|| RemoteError::Protocol {
            what: "Execute",
            reason: "a response without an action result".into(),
        })
    }

    fn outcome(
        &self,
        result: ActionResult,
        spec: &ActionSpec,
        cached: bool,
    ) -> Result<ActionOutcome, RemoteError> {
        let fetch = |raw: Vec<u8>, digest: Option<Digest>| match digest {
            Some(d) if raw.is_empty() && d.size_bytes > 0 => self.read(&d, spec.output_cap),
            _ => Ok(raw),
        };
        let mut outputs = Vec::new();
        for file in result.output_files {
            let data = match file.digest {
                Some(d) if file.contents.is_empty() => self.read(&d, spec.output_cap)?,
                _ => file.contents,
            };
            outputs.push((file.path, data));
        }
        Ok(ActionOutcome {
            exit_code: result.exit_code,
            stdout: fetch(result.stdout_raw, result.stdout_digest)?,
            stderr: fetch(result.stderr_raw, result.stderr_digest)?,
            outputs,
            cached,
        })
    }
}

/// The server's endpoint: `grpc://` in plain text, `grpcs://` over TLS, whose server must
/// show a certificate of the system's roots or, given `ca`, of that CA.
fn endpoint(url: &str, ca: Option<&Path>) -> Result<Endpoint, RemoteError> {
    let (scheme, address) = match url.split_once("://") {
        Some(("grpc", address)) => ("http", address),
        Some(("grpcs", address)) => ("https", address),
        _ => {
            return Err(RemoteError::BadSetting {
                what: format!("`{url}`: a remote address is grpc://HOST:PORT or grpcs://HOST:PORT"),
            });
        }
    };
    let endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
        .map_err(|_| RemoteError::BadSetting {
            what: format!("`{url}` is no address"),
        })?
        .connect_timeout(Duration::from_secs(10));
    if scheme == "http" {
        return Ok(endpoint);
    }
    let tls = match ca {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|source| RemoteError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem))
        }
        None => ClientTlsConfig::new().with_native_roots(),
    };
    endpoint
        .tls_config(tls)
        .map_err(|e| RemoteError::BadSetting {
            what: format!("`{url}`: TLS: {}", innermost(&e)),
        })
}

/// The last cause of `error`'s chain, in its own words.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut last = error;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}

/// The `authorization` header of every call, when a token is set.
#[derive(Clone)]
struct Auth(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Auth {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// google.rpc code 4 is DEADLINE_EXCEEDED: the worker stopped the action at its timeout.
fn status_error(status: &bazel_remote_apis::google::rpc::Status) -> RemoteError {
    if status.code == 4 {
        return RemoteError::TimedOut;
    }
    RemoteError::Rpc {
        what: "Execute",
        code: format!("{:?}", tonic::Code::from_i32(status.code)),
        message: status.message.clone(),
    }
}

/// A name no other upload of this or another process uses at once.
fn upload_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{:08x}-{nanos:x}-{:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The requests as a stream, as a client-streaming call takes them.
fn tokio_stream(
    requests: Vec<WriteRequest>,
) -> impl tonic::codegen::tokio_stream::Stream<Item = WriteRequest> {
    tonic::codegen::tokio_stream::iter(requests)
}
