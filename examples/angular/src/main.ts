// A chat box on openai-rx/angular: zoneless, one component, the answer paced by smoothText.
import { provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { ChatBox } from './chat-box';

bootstrapApplication(ChatBox, { providers: [provideZonelessChangeDetection()] }).catch((e: unknown) => console.error(e));
