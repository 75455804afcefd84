export { ofType } from './ofType.js';
