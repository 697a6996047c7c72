/**
 * The HTTP front: parses Kubernetes API paths, reads bodies (with a size limit), negotiates
 * Table output, and serves get/list/watch/create/update/patch/delete. Every failure becomes a
 * `Status` object; nothing a client sends can take the server down.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { Api, DeleteOptions, PropagationPolicy, WriteOptions } from './api';
import { patchKinds } from './api';
import type { Access } from './auth';
import type { Clock } from './clock';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  serverVersion,
  wantsAggregated,
} from './discovery';
import { ApiError, badRequest } from './errors';
import { checkNesting, decodePath, noteBodyBytes, parseRequestUrl, watchTimeoutMs } from './limits';
import { checkWriteOptions, managerFromUserAgent } from './managed-fields';
import type { OpenApi } from './openapi';
import { ProtobufError, decodeProtobufObject } from './protobuf';
import { checkLogState, formatLogLine, logRequest, type PodLogs } from './pod-logs';
import { requestAttributes } from './request-info';
import { groupVersion, typeKey, type Registry, type ResourceType } from './resources';
import { matchesRequirements } from '../kube';
import { labelSelectorParam, matchesFields, parseFieldSelector } from './selectors';
import type { Store, StoreEvent } from './store';
import { toTable, type IncludeObject } from './table';

export interface ServerOptions {
  api: Api;
  store: Store;
  registry: Registry;
  openapi: OpenApi;
  clock: Clock;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  /** Host check, authentication, impersonation, RBAC and body types (auth.ts): every request passes it first. */
  access: Access;
  /** The serving certificate and key (PEM): the API is served over https only (tls.ts). */
  tls: { cert: string; key: string };
  /** The simulated containers' output, served on pods/log. */
  logs: PodLogs;
  /** Called with every request, for debugging ("which calls does kubectl make?"). */
  onRequest?: (method: string, url: string) => void;
}

interface ResourceRequest {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  watchPrefix: boolean;
}

const json = 'application/json';

function send(res: ServerResponse, code: number, body: unknown, contentType = json): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

function sendError(res: ServerResponse, e: unknown): void {
  const err =
    e instanceof ApiError
      ? e
      : new ApiError(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
  send(res, err.code, err.toStatus());
}

function readBodyBytes(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > max) {
      reject(new ApiError(413, 'RequestEntityTooLarge', `the request body is too large: ${declared} bytes, the limit is ${max} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > max) {
        failed = true;
        reject(new ApiError(413, 'RequestEntityTooLarge', `the request body is too large: it is more than the limit of ${max} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (failed) return;
      noteBodyBytes(size);
      resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  return (await readBodyBytes(req, max)).toString('utf8');
}

function parseJson(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`the ${what} is not valid JSON: ${(e as Error).message}`);
  }
  checkNesting(value, what);
  return value;
}

/** A create or update body as an object: JSON, YAML, or the few kinds kubectl's generators send as protobuf. */
async function readObjectBody(req: IncomingMessage, max: number): Promise<unknown> {
  const bodyType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (bodyType === 'application/yaml') return parseYamlBody(await readBody(req, max));
  if (bodyType !== 'application/vnd.kubernetes.protobuf') return parseJson(await readBody(req, max), 'request body');
  try {
    return decodeProtobufObject(await readBodyBytes(req, max));
  } catch (e) {
    if (!(e instanceof ProtobufError)) throw e;
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the local cluster cannot read this protobuf body: ${e.message}; send JSON (kubectl apply -f FILE works for every kind)`,
    );
  }
}

/** A create or update body sent as YAML (Content-Type application/yaml), as the API server reads it. */
function parseYamlBody(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (e) {
    throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
  }
}

/** One serialisation of a watch event, shared by every watcher that receives it. */
const lines = new WeakMap<object, Map<string, string>>();
function eventLine(type: string, obj: object): string {
  let byType = lines.get(obj);
  if (!byType) lines.set(obj, (byType = new Map()));
  let line = byType.get(type);
  if (line === undefined) byType.set(type, (line = `${JSON.stringify({ type, object: obj })}\n`));
  return line;
}

export function createApiServer(opts: ServerOptions): Server {
  const { api, store, registry, clock } = opts;
  const server = createServer({ cert: opts.tls.cert, key: opts.tls.key }, (req, res) => {
    opts.onRequest?.(req.method ?? '', req.url ?? '');
    handle(req, res).catch((e) => {
      // Drain what is left of a rejected body so the answer reaches the client.
      if (e instanceof ApiError && e.code === 413) res.setHeader('Connection', 'close');
      sendError(res, e);
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    // What Node's HTTP parser refuses (an unknown method, a malformed header...) still gets a Status.
    const large = err.code === 'HPE_HEADER_OVERFLOW';
    const status = large
      ? new ApiError(431, 'BadRequest', 'the request line and headers are too large (the limit is 16 KiB)').toStatus()
      : badRequest(`the request cannot be read as HTTP: ${err.code ?? err.message}`).toStatus();
    const text = JSON.stringify(status);
    socket.end(
      `HTTP/1.1 ${large ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = parseRequestUrl(req.url);
    const q = url.searchParams;
    const segs = decodePath(url.pathname);
    const method = req.method ?? 'GET';
    const accept = req.headers.accept;

    // Who asks and may they (auth.ts); the authentication and authorization APIs answer there too.
    const attrs = requestAttributes(method, url);
    const user = opts.access.admit(method, req.headers, attrs);
    const own = await opts.access.serve(user, method, attrs, () => readObjectBody(req, opts.maxBodyBytes));
    if (own) return send(res, own.code, own.body);

    // Non-resource paths.
    const path = `/${segs.join('/')}`;
    if (method === 'GET') {
      if (path === '/version') return send(res, 200, serverVersion);
      if (path === '/healthz' || path === '/readyz' || path === '/livez') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        return void res.end('ok');
      }
      if (path === '/api') {
        if (wantsAggregated(accept)) return send(res, 200, aggregatedDiscovery(registry, true), aggregatedContentType);
        return send(res, 200, apiVersions(req.headers.host ?? '127.0.0.1'));
      }
      if (path === '/apis') {
        if (wantsAggregated(accept)) return send(res, 200, aggregatedDiscovery(registry, false), aggregatedContentType);
        return send(res, 200, apiGroupList(registry));
      }
      if (segs[0] === 'openapi') {
        const doc = opts.openapi.serve(segs.slice(1), q);
        if (doc) return send(res, 200, doc);
        throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${path})`);
      }
      if (segs[0] === 'api' && segs.length === 2) {
        const list = apiResourceList(registry, '', segs[1]!);
        if (list) return send(res, 200, list);
      }
      if (segs[0] === 'apis' && segs.length === 2) {
        const group = apiGroup(registry, segs[1]!);
        if (group) return send(res, 200, group);
      }
      if (segs[0] === 'apis' && segs.length === 3) {
        const list = apiResourceList(registry, segs[1]!, segs[2]!);
        if (list) return send(res, 200, list);
      }
    }

    const r = parseResourcePath(segs);
    if (!r) throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${method} ${path})`);
    const { type: t, namespace, name, subresource } = r;
    if (subresource && !t.subresources.includes(subresource)) {
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${method} ${path})`);
    }
    const bodyType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    const protobuf = bodyType === 'application/vnd.kubernetes.protobuf' && (method === 'POST' || method === 'PUT');
    if (!protobuf && (bodyType.includes('protobuf') || bodyType.includes('cbor'))) {
      // Bodies are JSON, plus the protobuf of the few kinds kubectl's generators create (protobuf.ts).
      // `kubectl apply -f` sends JSON and works for every kind.
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the local cluster accepts JSON bodies only, not ${bodyType} (use "kubectl apply -f FILE" instead of "kubectl create KIND ...") - accepted media types include: application/json, ${Object.keys(patchKinds).join(', ')}`,
      );
    }
    const dryRun = q.getAll('dryRun').includes('All');
    const objectBody = () => readObjectBody(req, opts.maxBodyBytes);
    const table = tableRequest(accept, q);
    /**
     * dryRun, and who writes (for managedFields): the fieldManager parameter, else the User-Agent's
     * prefix; checked as the API server checks its Create/Update/PatchOptions.
     */
    const writeOptions = (kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false): WriteOptions => {
      const fieldManager = q.get('fieldManager') ?? '';
      const force = q.get('force');
      const err = checkWriteOptions({ fieldManager, force, apply, kind });
      if (err) throw err;
      return {
        dryRun,
        manager: fieldManager || managerFromUserAgent(req.headers['user-agent']),
        ...(apply && (force === 'true' || force === '1') ? { force: true } : {}),
        user,
      };
    };

    if (subresource === 'log' && name && method === 'GET') return servePodLog(req, res, api.get(t, namespace, name), q);
    if (subresource === 'eviction' && name) {
      // The Eviction API: the pod is deleted (no PodDisruptionBudgets are modelled, so none refuses it).
      if (method !== 'POST')
        throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method} ${path})`);
      const eviction = parseJson(await readBody(req, opts.maxBodyBytes), 'request body') as {
        kind?: unknown;
        apiVersion?: unknown;
        metadata?: { name?: unknown };
        deleteOptions?: { preconditions?: unknown; dryRun?: unknown };
      } | null;
      if (eviction?.kind !== 'Eviction' || (eviction.apiVersion !== 'policy/v1' && eviction.apiVersion !== 'policy/v1beta1')) {
        throw badRequest(
          `an eviction needs a body of kind Eviction (apiVersion policy/v1), not ${JSON.stringify(eviction?.apiVersion ?? null)} ${JSON.stringify(eviction?.kind ?? null)}`,
        );
      }
      if (eviction.metadata?.name !== name)
        throw badRequest(
          `the Eviction's metadata.name (${JSON.stringify(eviction.metadata?.name ?? null)}) does not match the pod "${name}"`,
        );
      const del = eviction.deleteOptions ?? {};
      api.delete(t, namespace, name, {
        preconditions: del.preconditions as DeleteOptions['preconditions'],
        dryRun: dryRun || (Array.isArray(del.dryRun) && del.dryRun.includes('All')),
      });
      return send(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    }
    if (subresource === 'scale' && name) {
      if (method === 'GET') return send(res, 200, api.getScale(t, namespace, name));
      if (method === 'PUT')
        return send(
          res,
          200,
          api.writeScale(
            t,
            namespace,
            name,
            { body: parseJson(await readBody(req, opts.maxBodyBytes), 'request body') },
            writeOptions('UpdateOptions'),
          ),
        );
      if (method === 'PATCH') {
        const kind = patchKinds[bodyType];
        if (!kind || kind === 'apply')
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the scale subresource accepts ${Object.keys(patchKinds).slice(0, 3).join(', ')}, not ${bodyType || 'no Content-Type'}`,
          );
        const options = writeOptions('PatchOptions');
        return send(
          res,
          200,
          api.writeScale(t, namespace, name, { patch: { kind, raw: await readBody(req, opts.maxBodyBytes) } }, options),
        );
      }
      throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method} ${path})`);
    }
    switch (method) {
      case 'GET': {
        if (r.watchPrefix || q.get('watch') === 'true' || q.get('watch') === '1') return serveWatch(req, res, r, q, table);
        if (name) {
          const obj = api.get(t, namespace, name);
          return send(res, 200, table ? toTable(t, [obj], tableOpts(table, {})) : obj);
        }
        const limit = q.get('limit');
        const list = api.list(t, namespace, {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          limit: limit ? parseLimit(limit) : undefined,
          continueToken: q.get('continue') ?? undefined,
        });
        const listMeta = {
          resourceVersion: list.resourceVersion,
          ...(list.continueToken ? { continue: list.continueToken, remainingItemCount: list.remainingItemCount } : {}),
        };
        if (table) return send(res, 200, toTable(t, list.items, tableOpts(table, listMeta)));
        return send(res, 200, { kind: `${t.kind}List`, apiVersion: groupVersion(t), metadata: listMeta, items: list.items });
      }
      case 'POST': {
        if (name)
          throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (POST ${path})`);
        const options = writeOptions('CreateOptions');
        const created = api.create(t, namespace, await objectBody(), options);
        return send(res, 201, created);
      }
      case 'PUT': {
        if (!name)
          throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (PUT ${path})`);
        const options = writeOptions('UpdateOptions');
        return send(res, 200, api.update(t, namespace, name, await objectBody(), { ...options, subresource }));
      }
      case 'PATCH': {
        if (!name)
          throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (PATCH ${path})`);
        const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
        const kind = patchKinds[contentType];
        if (!kind) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format (${contentType || 'no Content-Type'}) - accepted media types include: ${Object.keys(patchKinds).join(', ')}`,
          );
        }
        const options = writeOptions('PatchOptions', kind === 'apply');
        const raw = await readBody(req, opts.maxBodyBytes);
        const creates = kind === 'apply' && !subresource && !api.find(t, namespace, name); // an apply that creates answers 201
        return send(res, creates ? 201 : 200, api.patch(t, namespace, name, kind, raw, { ...options, subresource }));
      }
      case 'DELETE': {
        const raw = await readBody(req, opts.maxBodyBytes);
        const body = raw.trim() ? (parseJson(raw, 'DeleteOptions body') as any) : {};
        const policy = (body?.propagationPolicy ?? q.get('propagationPolicy') ?? undefined) as PropagationPolicy | undefined;
        if (policy && !['Background', 'Foreground', 'Orphan'].includes(policy))
          throw badRequest(`propagationPolicy "${policy}" is not one of Background, Foreground, Orphan`);
        const delOpts: DeleteOptions = {
          propagationPolicy: policy ?? (body?.orphanDependents === true ? 'Orphan' : undefined),
          preconditions: body?.preconditions,
          dryRun: dryRun || (Array.isArray(body?.dryRun) && body.dryRun.includes('All')),
        };
        if (name) return send(res, 200, api.delete(t, namespace, name, delOpts));
        const deleted = api.deleteCollection(t, namespace, {
          ...delOpts,
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
        });
        return send(res, 200, {
          kind: `${t.kind}List`,
          apiVersion: groupVersion(t),
          metadata: { resourceVersion: String(store.resourceVersion()) },
          items: deleted,
        });
      }
      default:
        throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method} ${path})`);
    }
  }

  /**
   * `pods/log` as the kubelet serves it through the API server: text/plain lines; with `follow`,
   * chunked, each new line as it is written, until the client goes, the pod is deleted, the
   * limitBytes are sent, or the server stops.
   */
  function servePodLog(req: IncomingMessage, res: ServerResponse, pod: any, q: URLSearchParams): void {
    const r = logRequest(pod, q, clock.now());
    const previous = q.get('previous') === 'true' || q.get('previous') === '1';
    checkLogState(pod, r.container, previous);
    const { namespace, name } = pod.metadata;
    const backlog = opts.logs.read(namespace, name, r.container, r.query);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    let left = r.limitBytes ?? Infinity;
    /** Writes what the byte limit allows; false once it is reached. */
    const write = (text: string): boolean => {
      if (left <= 0) return false;
      const bytes = Buffer.from(text);
      res.write(bytes.length > left ? bytes.subarray(0, left) : bytes);
      left -= bytes.length;
      return left > 0;
    };
    let open = true;
    for (const line of backlog) if (!(open = write(formatLogLine(line, r.timestamps)))) break;
    if (!r.follow || !open || previous) return void res.end();
    res.flushHeaders();
    let unsubscribe = (): void => undefined;
    const finish = () => {
      unsubscribe();
      if (!res.writableEnded) res.end();
    };
    unsubscribe = opts.logs.follow(namespace, name, r.container, (line) => {
      if (line === 'gone' || !write(formatLogLine(line, r.timestamps))) finish();
    });
    req.on('close', finish);
    res.on('close', finish);
    res.on('error', finish);
  }

  function parseLimit(text: string): number {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw badRequest(`limit must be a non-negative integer, got "${text}"`);
    return n;
  }

  function tableOpts(includeObject: IncludeObject, listMeta: Record<string, unknown>, withColumns = true) {
    return { now: clock.now(), includeObject, listMeta, withColumns };
  }

  /** 'None' | 'Metadata' | 'Object' when the client asked for a Table first, else undefined. */
  function tableRequest(accept: string | undefined, q: URLSearchParams): IncludeObject | undefined {
    const first = (accept ?? '').split(',')[0]!.replace(/\s/g, '');
    if (!/as=Table/.test(first) || !/g=meta\.k8s\.io/.test(first)) return undefined;
    const inc = q.get('includeObject');
    return inc === 'None' || inc === 'Object' ? inc : 'Metadata';
  }

  function parseResourcePath(segs: string[]): ResourceRequest | undefined {
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api' && segs.length >= 3) {
      group = '';
      version = segs[1]!;
      rest = segs.slice(2);
    } else if (segs[0] === 'apis' && segs.length >= 4) {
      group = segs[1]!;
      version = segs[2]!;
      rest = segs.slice(3);
    } else return undefined;
    let watchPrefix = false;
    if (rest[0] === 'watch') {
      watchPrefix = true;
      rest = rest.slice(1);
    }
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource, ...extra] = rest;
    if (!plural || extra.length) return undefined;
    const type = registry.find(group, version, plural);
    if (!type) return undefined;
    if (namespace !== undefined && !type.namespaced) return undefined;
    return { type, namespace, name, subresource, watchPrefix };
  }

  function serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    q: URLSearchParams,
    table: IncludeObject | undefined,
  ): void {
    const t = r.type;
    const labels = labelSelectorParam(q.get('labelSelector') ?? '');
    const fields = parseFieldSelector(q.get('fieldSelector') ?? '', t);
    if (r.name) fields.push({ path: ['metadata', 'name'], equal: true, value: r.name });
    const ns = t.namespaced ? r.namespace : undefined;
    const matches = (o: any) =>
      (ns === undefined || o.metadata.namespace === ns) && matchesRequirements(o.metadata.labels, labels) && matchesFields(o, fields);
    const filtered = labels.length > 0 || fields.length > 0;
    const rvParam = q.get('resourceVersion') ?? '';
    const bookmarks = q.get('allowWatchBookmarks') === 'true';
    const sendInitial = q.get('sendInitialEvents') === 'true';
    const timeoutMs = watchTimeoutMs(q.get('timeoutSeconds'));
    let replay: StoreEvent[] | 'gone' = [];
    if (rvParam !== '' && rvParam !== '0' && !sendInitial) {
      const rv = Number(rvParam);
      if (!Number.isInteger(rv) || rv < 0) throw badRequest(`resourceVersion "${rvParam}" is not valid`);
      replay = store.eventsSince(typeKey(t), rv);
    }

    res.writeHead(200, { 'Content-Type': json, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    let first = true;
    // Events are batched per turn of the event loop: one socket write for a burst, not one each.
    let pending: string[] = [];
    const flush = () => {
      if (pending.length && !res.writableEnded) res.write(pending.join(''));
      pending = [];
    };
    const write = (type: string, obj: any) => {
      if (!pending.length) setImmediate(flush);
      if (table && type !== 'BOOKMARK' && type !== 'ERROR') {
        pending.push(
          `${JSON.stringify({ type, object: toTable(t, [obj], tableOpts(table, { resourceVersion: obj.metadata.resourceVersion }, first)) })}\n`,
        );
        first = false;
      } else {
        pending.push(eventLine(type, obj));
      }
    };
    if (replay === 'gone') {
      res.end(
        eventLine('ERROR', new ApiError(410, 'Expired', `too old resource version: ${rvParam} (${store.resourceVersion()})`).toStatus()),
      );
      return;
    }
    // With a selector, an object that starts matching is ADDED and one that stops is DELETED.
    const deliverOrFail = (e: { type: string; obj: any; prev?: any }) => {
      const now = matches(e.obj);
      if (e.type !== 'MODIFIED' || !filtered) {
        if (now) write(e.type, e.obj);
        return;
      }
      const before = e.prev !== undefined && matches(e.prev);
      if (now) write(before ? 'MODIFIED' : 'ADDED', e.obj);
      else if (before) write('DELETED', e.obj);
    };
    // What fails for one watcher (an event it cannot be sent) ends that watch with an ERROR
    // event; the write that caused it is committed and other watchers are not affected.
    let failed = false;
    const deliver = (e: { type: string; obj: any; prev?: any }) => {
      if (failed) return;
      try {
        deliverOrFail(e);
      } catch (err) {
        failed = true;
        const status = new ApiError(
          500,
          'InternalError',
          `the watch cannot send the event of resourceVersion ${e.obj?.metadata?.resourceVersion}: ${(err as Error).message}; watch again`,
        ).toStatus();
        pending.push(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
        setImmediate(() => finish());
      }
    };
    if (rvParam === '' || rvParam === '0' || sendInitial) {
      for (const o of store.list(typeKey(t), ns)) deliver({ type: 'ADDED', obj: o });
      if (sendInitial && bookmarks) {
        write('BOOKMARK', {
          kind: t.kind,
          apiVersion: groupVersion(t),
          metadata: { resourceVersion: String(store.resourceVersion()), annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
      }
    } else {
      for (const e of replay) deliver(e);
    }
    const unsubscribe = store.watch(typeKey(t), deliver);
    const timers: NodeJS.Timeout[] = [];
    const finish = () => {
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
      flush();
      if (!res.writableEnded) res.end();
    };
    if (timeoutMs !== undefined) timers.push(setTimeout(finish, timeoutMs));
    if (bookmarks) {
      const interval = setInterval(
        () =>
          write('BOOKMARK', { kind: t.kind, apiVersion: groupVersion(t), metadata: { resourceVersion: String(store.resourceVersion()) } }),
        opts.bookmarkIntervalMs,
      );
      timers.push(interval as unknown as NodeJS.Timeout);
    }
    req.on('close', finish);
    res.on('close', finish);
    res.on('error', finish);
  }

  return server;
}
