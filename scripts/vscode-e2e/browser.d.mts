// Types of browser.mjs, for the TypeScript tests that import it.
import type { BrowserContext, Page } from 'playwright-core';

/** Debian's chromium, or CHROMIUM_PATH. */
export declare const CHROMIUM: string;
/** A headless chromium with its profile in profileDir (the caller makes and removes it). */
export declare function launchChromium(profileDir: string): Promise<BrowserContext>;
/** Runs the command-palette command `title`. */
export declare function runCommand(page: Page, title: string): Promise<void>;
/** Opens the workspace file `name` through Quick Open. */
export declare function quickOpen(page: Page, name: string): Promise<void>;
/** Widens the side bar by `by` pixels, dragging its right edge. */
export declare function widenSideBar(page: Page, by: number): Promise<void>;
