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

export declare class Component<P = {}, S = {}> {
  constructor(props?: P, context?: unknown);
  props: P & { children?: ComponentChildren };
  state: S;
  setState<K extends keyof S>(state: Pick<S, K> | Partial<S> | ((prev: S, props: P) => Pick<S, K> | Partial<S> | null) | null, callback?: () => void): void;
  forceUpdate(callback?: () => void): void;
  componentDidMount?(): void;
  componentWillUnmount?(): void;
  render(props?: P, state?: S): ComponentChild;
}

export type ComponentType<P = {}> = FunctionComponent<P> | (new (props: P) => Component<P, any>);

export function h<P>(type: string | ComponentType<P>, props: (P & { key?: Key }) | Record<string, unknown> | null, ...children: ComponentChildren[]): VNode<any>;
export function render(vnode: ComponentChild, parent: Element | DocumentFragment): void;
export function html(strings: TemplateStringsArray, ...values: unknown[]): VNode<any> | VNode<any>[];

export type StateUpdater<S> = (value: S | ((previous: S) => S)) => void;
export function useState<S>(initial: S | (() => S)): [S, StateUpdater<S>];
export function useReducer<S, A>(reducer: (state: S, action: A) => S, initial: S): [S, (action: A) => void];
export type EffectCallback = () => void | (() => void);
export function useEffect(effect: EffectCallback, inputs?: readonly unknown[]): void;
export function useLayoutEffect(effect: EffectCallback, inputs?: readonly unknown[]): void;
export function useRef<T>(initial: T): { current: T };
export function useMemo<T>(factory: () => T, inputs: readonly unknown[] | undefined): T;
export function useCallback<T extends (...args: any[]) => unknown>(callback: T, inputs: readonly unknown[]): T;
