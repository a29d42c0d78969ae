PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_lab_values` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`loinc` text NOT NULL,
	`printed_name` text DEFAULT '' NOT NULL,
	`value` real,
	`unit` text NOT NULL,
	`value_text` text,
	`printed_value` text DEFAULT '' NOT NULL,
	`printed_unit` text,
	`range_text` text,
	`range_low` real,
	`range_high` real,
	`flag` text,
	`page` integer,
	`box` text,
	`confidence` real,
	`status` text DEFAULT 'read' NOT NULL,
	`removed_from` text,
	`checked_by` text,
	`checked_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`checked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_lab_values`("id", "report_id", "loinc", "printed_name", "value", "unit", "value_text", "printed_value", "printed_unit", "range_text", "range_low", "range_high", "flag", "page", "box", "confidence", "status", "removed_from", "checked_by", "checked_at", "created_at") SELECT "id", "report_id", "loinc", "printed_name", "value", "unit", NULL, "printed_value", "printed_unit", "range_text", "range_low", "range_high", "flag", "page", "box", "confidence", "status", "removed_from", "checked_by", "checked_at", "created_at" FROM `lab_values`;--> statement-breakpoint
DROP TABLE `lab_values`;--> statement-breakpoint
ALTER TABLE `__new_lab_values` RENAME TO `lab_values`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `lab_values_report_idx` ON `lab_values` (`report_id`,`page`,`id`);--> statement-breakpoint
CREATE INDEX `lab_values_loinc_idx` ON `lab_values` (`loinc`,`report_id`);