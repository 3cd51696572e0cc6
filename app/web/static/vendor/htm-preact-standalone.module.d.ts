// Types of htm-preact-standalone.module.js for the site's type check (tsc --checkJs): written here for the
// part of the module the site uses, after htm's preact/index.d.ts and Preact 10's own declarations.
// TypeScript reads this file instead of the minified module beside it.

export type Key = string | number;

export interface VNode<P = {}> {
  type: string | ComponentType<P>;
  props: P & { children?: ComponentChildren };
  key: Key | null | undefined;
}

export type ComponentChild = VNode<any> | object | string | number | bigint | boolean | null | undefined;
export type ComponentChildren = ComponentChild[] | ComponentChild;

export type FunctionComponent<P = {}> = (props: P & { children?: ComponentChildren }) => VNode<any> | null;

export type ComponentType<P = {}> = FunctionComponent<P>;

export function h<P>(type: string | ComponentType<P>, props: (P & { key?: Key }) | Record<string, unknown> | null, ...children: ComponentChildren[]): VNode<any>;
export function render(vnode: ComponentChild, parent: Element | DocumentFragment): void;

export type StateUpdater<S> = (value: S | ((previous: S) => S)) => void;
export function useState<S>(initial: S | (() => S)): [S, StateUpdater<S>];
export type EffectCallback = () => void | (() => void);
export function useEffect(effect: EffectCallback, inputs?: readonly unknown[]): void;
