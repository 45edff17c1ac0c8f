package dev.rota.cluster.agent;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The items of {@link AgentEntity.AcceptedAll} name their type, so that the answer crosses nodes: a
 * list of the sealed {@link AgentEntity.Reply} alone does not say which record each item is.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({
  ElementType.FIELD,
  ElementType.METHOD,
  ElementType.PARAMETER,
  ElementType.RECORD_COMPONENT
})
@JacksonAnnotationsInside
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "reply")
@JsonSubTypes({
  @JsonSubTypes.Type(value = AgentEntity.Accepted.class, name = "accepted"),
  @JsonSubTypes.Type(value = AgentEntity.Rejected.class, name = "rejected")
})
@interface BatchReplies {}
