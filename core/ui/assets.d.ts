// The page's files, bundled into dist/cli.mjs as text by scripts/build.mjs (the client script compiled
// from core/ui/page/app.ts on the way).
declare module "peerpost-ui-assets" {
  export const html: string;
  export const css: string;
  export const icon: string;
  export const script: string;
}
