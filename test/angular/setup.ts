// TestBed for the Angular tests, zoneless: the JIT compiler (Angular's packages are partially compiled) and
// the browser testing platform, once per test file (jest gives each file its own module registry).
import '@angular/compiler';
import { provideZonelessChangeDetection } from '@angular/core';
import { getTestBed, TestBed } from '@angular/core/testing';
import { BrowserTestingModule, platformBrowserTesting } from '@angular/platform-browser/testing';

const testBed = getTestBed();
if (testBed.platform === null) testBed.initTestEnvironment(BrowserTestingModule, platformBrowserTesting(), { teardown: { destroyAfterEach: true } });

/** A fresh zoneless testing module. */
export function zoneless(): void {
  TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection()] });
}
