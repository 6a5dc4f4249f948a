/** The console's own component set: every page is built from these. */
export { Alert } from './alert';
export { Badge, type Tone } from './badge';
export { Button, type ButtonVariant } from './button';
export { Card } from './card';
export { Dialog } from './dialog';
export { EmptyState } from './empty-state';
export { Field, TextField } from './field';
export { type Column, Table } from './table';
export { toast, Toaster } from './toast';
