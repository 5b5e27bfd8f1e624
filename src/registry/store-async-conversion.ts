// A version of a resource whose conversion needs a round trip (CRD conversion strategy Webhook): the store of the
// storage version serves it, and objects cross between the two versions on the way in (to the storage version)
// and out (to the served one), a list in one call. Watch events keep their order while they are converted.

import { isStatusError } from '../apis/errors.ts';
import { apiVersionOf } from './store-codec.ts';
import type { KubeObject, ResourceDefinition, ResourceStore, WatchEvent, WatchStream } from './types.ts';

export type AsyncConvert = (objects: readonly KubeObject[], apiVersion: string) => Promise<KubeObject[]>;

function convertingStream(inner: WatchStream, served: string, toServed: (o: KubeObject) => Promise<KubeObject>): WatchStream {
  return {
    start(onEvent, onEnd) {
      let chain: Promise<void> = Promise.resolve();
      let failed = false;
      inner.start(
        (ev) => {
          chain = chain.then(async () => {
            if (failed) return;
            if (ev.type === 'ERROR') return void onEvent(ev);
            const object = ev.object as KubeObject;
            if (ev.type === 'BOOKMARK') return void onEvent({ type: ev.type, object: { ...object, apiVersion: served } });
            try {
              onEvent({ type: ev.type, object: await toServed(object) } satisfies WatchEvent);
            } catch (e) {
              failed = true;
              inner.stop();
              if (isStatusError(e)) onEvent({ type: 'ERROR', object: e.toStatus() });
              onEnd(e as Error);
            }
          });
        },
        (err) => {
          chain = chain.then(() => {
            if (!failed) onEnd(err);
          });
        },
      );
    },
    stop: () => inner.stop(),
  };
}

/** `inner` serves the storage version; the returned store serves `def`'s version through `convert`. */
export function asyncConvertingStore(inner: ResourceStore, def: ResourceDefinition, convert: AsyncConvert): ResourceStore {
  const served = apiVersionOf(def);
  const stored = apiVersionOf(inner.definition);
  const toServed = async (o: KubeObject) => (o.apiVersion === served ? o : (await convert([o], served))[0]);
  const toStored = async (o: KubeObject) => (o.apiVersion === stored ? o : (await convert([o], stored))[0]);
  return {
    definition: def,
    async get(ctx, name, options) {
      const obj = await inner.get(ctx, name, options);
      return options?.subresource === 'scale' ? obj : toServed(obj);
    },
    async list(ctx, options) {
      const list = await inner.list(ctx, options);
      return { kind: list.kind, apiVersion: served, metadata: list.metadata, items: await convert(list.items, served) };
    },
    async create(ctx, obj) {
      return toServed(await inner.create(ctx, await toStored(obj)));
    },
    async update(ctx, name, tryUpdate, options) {
      if (options?.subresource === 'scale') return inner.update(ctx, name, tryUpdate, options);
      const res = await inner.update(ctx, name, async (current) => toStored(await tryUpdate(current && (await toServed(current)))), options);
      return { ...res, object: await toServed(res.object) };
    },
    async delete(ctx, name, options) {
      const res = await inner.delete(ctx, name, options);
      return res.status ? res : { ...res, object: await toServed(res.object) };
    },
    async deleteCollection(ctx, listOptions, deleteOptions) {
      const list = await inner.deleteCollection(ctx, listOptions, deleteOptions);
      return { kind: list.kind, apiVersion: served, metadata: list.metadata, items: await convert(list.items, served) };
    },
    async watch(ctx, options) {
      return convertingStream(await inner.watch(ctx, options), served, toServed);
    },
  };
}
