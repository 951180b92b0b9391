/** Entry point of `cdk synth` / `cdk deploy` (cdk.json's "app"). Needs no AWS credentials to synthesize. */
import { buildApp } from './pet-store-app.js';

buildApp().app.synth();
