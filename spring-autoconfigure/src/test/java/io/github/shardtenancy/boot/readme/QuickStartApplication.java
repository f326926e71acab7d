package io.github.shardtenancy.boot.readme;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of README's quick start: its entity and a repository, nothing else. */
@SpringBootApplication
public class QuickStartApplication {

}
