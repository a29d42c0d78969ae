CREATE INDEX `users_type_created_idx` ON `users` (`account_type`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`created_at`);